/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Freestanding x86-64 test guests for VM planes: serial output, string
 * helpers and a small printf (both planes link it).
 */

#include <stdarg.h>
#include "guest.h"

#define COM1 0x3f8

void serial_init(void)
{
    outb(COM1 + 1, 0x00);       /* no interrupts */
    outb(COM1 + 3, 0x80);       /* DLAB */
    outb(COM1 + 0, 0x01);       /* 115200 */
    outb(COM1 + 1, 0x00);
    outb(COM1 + 3, 0x03);       /* 8N1 */
}

void putc(char c)
{
    if (c == '\n') {
        putc('\r');
    }
    while (!(inb(COM1 + 5) & 0x20)) {
        /* wait for the transmitter */
    }
    outb(COM1, c);
}

void puts(const char *s)
{
    while (*s) {
        putc(*s++);
    }
}

static void put_u64(u64 v, unsigned base, int width)
{
    char buf[24];
    int n = 0;

    do {
        buf[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    while (n < width) {
        buf[n++] = '0';
    }
    while (n) {
        putc(buf[--n]);
    }
}

/* %s %c %d (s64) %u (u64) %x (u64) %016x */
void printf(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    for (; *fmt; fmt++) {
        int width = 0;

        if (*fmt != '%') {
            putc(*fmt);
            continue;
        }
        fmt++;
        while (*fmt >= '0' && *fmt <= '9') {
            width = width * 10 + *fmt++ - '0';
        }
        switch (*fmt) {
        case 's':
            puts(va_arg(ap, const char *));
            break;
        case 'c':
            putc(va_arg(ap, int));
            break;
        case 'd': {
            s64 v = va_arg(ap, s64);

            if (v < 0) {
                putc('-');
                v = -v;
            }
            put_u64(v, 10, width);
            break;
        }
        case 'u':
            put_u64(va_arg(ap, u64), 10, width);
            break;
        case 'x':
            put_u64(va_arg(ap, u64), 16, width);
            break;
        default:
            putc(*fmt);
        }
    }
    va_end(ap);
}

void *memset(void *d, int c, size_t n)
{
    u8 *p = d;

    while (n--) {
        *p++ = c;
    }
    return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
    u8 *p = d;
    const u8 *q = s;

    while (n--) {
        *p++ = *q++;
    }
    return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const u8 *p = a, *q = b;

    for (; n; n--, p++, q++) {
        if (*p != *q) {
            return *p - *q;
        }
    }
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;

    while (s[n]) {
        n++;
    }
    return n;
}

int strncmp(const char *a, const char *b, size_t n)
{
    for (; n; n--, a++, b++) {
        if (*a != *b || !*a) {
            return (u8)*a - (u8)*b;
        }
    }
    return 0;
}

int strcmp(const char *a, const char *b)
{
    return strncmp(a, b, (size_t)-1);
}

char *strncpy(char *d, const char *s, size_t n)
{
    size_t i = 0;

    for (; i < n && s[i]; i++) {
        d[i] = s[i];
    }
    for (; i < n; i++) {
        d[i] = 0;
    }
    return d;
}

/* The value of "key=value" in a space-separated command line, or NULL. */
const char *cmdline_arg(const char *cmdline, const char *key)
{
    size_t klen = strlen(key);
    const char *p = cmdline;

    while (p && *p) {
        while (*p == ' ') {
            p++;
        }
        if (!strncmp(p, key, klen) && p[klen] == '=') {
            return p + klen + 1;
        }
        while (*p && *p != ' ') {
            p++;
        }
    }
    return NULL;
}

u64 parse_u64(const char *s)
{
    u64 v = 0;
    unsigned base = 10;

    if (s[0] == '0' && s[1] == 'x') {
        base = 16;
        s += 2;
    }
    for (;; s++) {
        unsigned d;

        if (*s >= '0' && *s <= '9') {
            d = *s - '0';
        } else if (base == 16 && *s >= 'a' && *s <= 'f') {
            d = *s - 'a' + 10;
        } else {
            return v;
        }
        v = v * base + d;
    }
}
