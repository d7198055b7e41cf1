/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A model of a VM-planes host kernel's KVM UAPI, at the ioctl level, for
 * tests only.  Preloaded into QEMU (LD_PRELOAD), it answers /dev/kvm and
 * the fds made from it the way the seed kernel of the VBS-on-KVM series
 * does ("The two kernel models" in docs/system/i386/planes.rst), and
 * logs every ioctl that kernel would refuse as a VIOLATION line, so that
 * a test fails on it.
 *
 * It checks QEMU's side of the contract, not a CPU: no guest code runs.
 * What plane 0 does is a fixed script per vCPU (each KVM_RUN of plane 0's
 * vCPU fd plays one step: a hypercall exit with the registers a guest
 * would give, a memory fault, a reset, an isa-debug-exit), and plane 1
 * "runs" in that the model checks the state QEMU gave it at the moment
 * the kernel would switch to it, and plays the exits plane 1 causes
 * (I/O, MMIO, shutdown), which reach QEMU on plane 0's vCPU fd, the one
 * QEMU runs.  Stock ioctls (memory slots, CPUID, MSRs, register state)
 * are answered plausibly and remembered, not checked.
 *
 * Each rule of the planes kernel is cited next to its check: the
 * function, and the patch that brings it, of the base planes series
 * (Roedel's, "[PATCH nn/60]") or of the VBS-on-KVM series on top
 * (safe-tee/lvbs patches/linux, "lvbs 00nn").  One rule is QEMU's own,
 * not the kernel's, and says so: a plane vCPU is touched only from its
 * index's thread.
 *
 * Environment:
 *   KVM_MODEL_LOG       file the model appends its log to
 *   KVM_MODEL_KERNEL    "seed" (default): planes switched by the kernel;
 *                       "rfc": the RFC family's userspace-switched planes;
 *                       "stock": a kernel without planes
 *   KVM_MODEL_SCRIPT0   vCPU 0's script, KVM_MODEL_SCRIPT1 vCPU 1's: steps
 *                       separated by commas, see model_step()
 *   KVM_MODEL_CA        GPA of the calling-area page (default 0x9000)
 *   KVM_MODEL_ARRAY     GPA of the plane config array (default 0x8000)
 *   KVM_MODEL_REGION    "BASE:SIZE" of plane 1's region
 *                       (default 0x10000000:0x4000000)
 *   KVM_MODEL_GO        the file whose existence ends an await-go step
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cpuid.h>
#include <linux/kvm.h>

/* The fork's numbers of the provisional UAPI, as QEMU uses them. */
#define QEMU_BUILD_BUG_ON(x) _Static_assert(!(x), #x)
#include "hw/planes/planes-kvm-uapi.h"

/* The guest ABI, from planes-abi.md: independent of the fork's headers. */
#define HC_CONFIG       13
#define HC_ACTIVATE     14
#define HC_VTL_CALL     15
#define HC_VTL_RETURN   16
#define CONFIG_ENTRY    672
#define CONFIG_ENTRY_POINT  16
#define CONFIG_CMDLINE  156
#define BOOT_PAGETABLES 0x10000
#define BOOT_GDT        0x4000
#define BOOT_PARAMS     0x2000

#define MAX_FDS         4096
#define MAX_SLOTS       64
#define MAX_VCPUS       8
#define MAX_PLANES      4
#define MAX_MSRS        128
#define RUN_SIZE        (3 * 4096)
#define IO_DATA_OFFSET  4096

typedef enum FdKind {
    FD_NONE, FD_SYSTEM, FD_VM, FD_PLANE, FD_VCPU,
} FdKind;

typedef struct Vcpu {
    unsigned int plane;
    unsigned long id;
    bool runnable;              /* plane >= 1: not waiting for INIT */
    bool in_plane1;             /* plane 0: its plane-1 sibling runs */
    bool wedged;                /* plane 0: entered a plane 1 that hangs */
    pid_t owner;                /* plane 0: creator; plane >= 1: index's */
    struct kvm_run *run;
    struct kvm_regs regs;
    struct kvm_sregs sregs;
    bool regs_set, sregs_set;
    struct kvm_msr_entry msrs[MAX_MSRS];
    unsigned int nr_msrs;
    sigset_t run_mask;
    bool has_run_mask;
    /* plane 0: the script and the exit KVM_RUN gave last */
    char **steps;
    unsigned int nr_steps, step;
    uint32_t last_exit;
    uint64_t last_nr;
    bool ran;
    unsigned int resets;
} Vcpu;

typedef struct Fd {
    FdKind kind;
    unsigned int plane;         /* FD_PLANE */
    Vcpu *vcpu;                 /* FD_VCPU */
} Fd;

typedef struct Slot {
    uint64_t gpa, size, hva;
} Slot;

static struct {
    pthread_mutex_t lock;
    bool ready;
    FILE *log;
    enum { KERNEL_STOCK, KERNEL_SEED, KERNEL_RFC } kernel;
    Fd fds[MAX_FDS];
    Slot slots[MAX_SLOTS];
    Vcpu *vcpu[MAX_PLANES][MAX_VCPUS];
    bool plane_fd[MAX_PLANES];
    uint64_t exit_hypercalls;
    bool split_irqchip, full_irqchip;
    bool has_planes;
    unsigned int created_vcpus;
    unsigned int violations;
    uint64_t ca, array, region_base, region_size;
} m = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_ioctl)(int, unsigned long, ...);
static int (*real_close)(int);

static pid_t model_tid(void)
{
    return syscall(SYS_gettid);
}

static void model_log(const char *fmt, ...)
{
    va_list ap;

    if (!m.log) {
        return;
    }
    flockfile(m.log);
    va_start(ap, fmt);
    vfprintf(m.log, fmt, ap);
    va_end(ap);
    fputc('\n', m.log);
    fflush(m.log);
    funlockfile(m.log);
}

/* An ioctl the real kernel refuses: logged, counted, answered as it is. */
static int model_refuse(int err, const char *fmt, ...)
{
    va_list ap;
    char buf[512];

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    __atomic_add_fetch(&m.violations, 1, __ATOMIC_SEQ_CST);
    model_log("VIOLATION %s (errno %d)", buf, err);
    errno = err;
    return -1;
}

/* A number in C notation (0x...); outside QEMU, so no qemu_strtou64. */
static uint64_t model_u64(const char *text, uint64_t dflt)
{
    uint64_t v;

    return text && sscanf(text, "%" SCNi64, &v) == 1 ? v : dflt;
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    return model_u64(getenv(name), dflt);
}

static __attribute__((constructor)) void model_init(void)
{
    const char *k, *region;

    real_open = dlsym(RTLD_NEXT, "open");
    real_open64 = dlsym(RTLD_NEXT, "open64");
    real_ioctl = dlsym(RTLD_NEXT, "ioctl");
    real_close = dlsym(RTLD_NEXT, "close");
    if (getenv("KVM_MODEL_LOG")) {
        m.log = fopen(getenv("KVM_MODEL_LOG"), "a");
    }
    k = getenv("KVM_MODEL_KERNEL") ?: "seed";
    m.kernel = !strcmp(k, "stock") ? KERNEL_STOCK :
               !strcmp(k, "rfc") ? KERNEL_RFC : KERNEL_SEED;
    m.ca = env_u64("KVM_MODEL_CA", 0x9000);
    m.array = env_u64("KVM_MODEL_ARRAY", 0x8000);
    region = getenv("KVM_MODEL_REGION") ?: "0x10000000:0x4000000";
    m.region_base = model_u64(region, 0);
    m.region_size = strchr(region, ':') ?
                    model_u64(strchr(region, ':') + 1, 0) : 0;
    m.ready = true;
}

static int model_new_fd(FdKind kind)
{
    int fd = memfd_create("kvm-model", MFD_CLOEXEC);

    if (fd < 0) {
        return -1;
    }
    if (fd >= MAX_FDS) {
        real_close(fd);
        errno = EMFILE;
        return -1;
    }
    m.fds[fd] = (Fd) { .kind = kind };
    return fd;
}

static Fd *model_fd(int fd)
{
    return m.ready && fd >= 0 && fd < MAX_FDS && m.fds[fd].kind != FD_NONE ?
           &m.fds[fd] : NULL;
}

/* Guest memory through the slots QEMU registered. */
static void *model_gpa(uint64_t gpa, uint64_t size)
{
    for (int i = 0; i < MAX_SLOTS; i++) {
        Slot *s = &m.slots[i];

        if (s->size && gpa >= s->gpa && gpa + size <= s->gpa + s->size) {
            return (void *)(uintptr_t)(s->hva + gpa - s->gpa);
        }
    }
    return NULL;
}

/* ---- /dev/kvm --------------------------------------------------------- */

static bool model_has_planes(void)
{
    return m.kernel != KERNEL_STOCK;
}

typedef enum CapScope {
    SCOPE_SYSTEM, SCOPE_VM, SCOPE_PLANE,
} CapScope;

/*
 * KVM_CAP_PLANES.  The system fd answers 1 (kvm_vm_ioctl_check_extension_
 * generic(), virt/kvm/kvm_main.c, "kvm: Implement KVM_CAP_PLANES"); the
 * VM fd kvm_arch_max_planes(): 1 until the irqchip is split ([PATCH
 * 54/60] "Restrict KVM planes support to KVM_IRQCHIP_SPLIT",
 * arch/x86/kvm/x86.c), then kvm_x86_default_max_planes(), 2 (lvbs 0021);
 * a plane fd 0, as a plane hosts no planes (__kvm_plane_ioctl(), lvbs
 * 0036).
 */
static int model_cap_planes(CapScope scope)
{
    if (!model_has_planes()) {
        return 0;
    }
    switch (scope) {
    case SCOPE_SYSTEM:
        return 1;
    case SCOPE_VM:
        return m.split_irqchip ? 2 : 1;
    default:
        return 0;
    }
}

/* Attributes KVM_SET_MEMORY_ATTRIBUTES takes (on the VM fd). */
static uint64_t model_mem_attributes(void)
{
    /*
     * kvm_supported_mem_attributes() (virt/kvm/kvm_main.c, lvbs 0024):
     * NO_WRITE and NO_EXEC with CONFIG_VM_PLANES, no PRIVATE for a
     * default VM.  The RFC family offers them on plane fds only.
     */
    return m.kernel == KERNEL_SEED ?
           KVM_MEMORY_ATTRIBUTE_NO_WRITE | KVM_MEMORY_ATTRIBUTE_NO_EXEC : 0;
}

static int model_check_extension(long cap, CapScope scope)
{
    switch (cap) {
    case KVM_CAP_USER_MEMORY:
    case KVM_CAP_DESTROY_MEMORY_REGION_WORKS:
    case KVM_CAP_JOIN_MEMORY_REGIONS_WORKS:
    case KVM_CAP_INTERNAL_ERROR_DATA:
    case KVM_CAP_IOEVENTFD:
    case KVM_CAP_IOEVENTFD_ANY_LENGTH:
    case KVM_CAP_SET_TSS_ADDR:
    case KVM_CAP_EXT_CPUID:
    case KVM_CAP_MP_STATE:
    case KVM_CAP_SIGNAL_MSI:
    case KVM_CAP_DEBUGREGS:
    case KVM_CAP_XSAVE:
    case KVM_CAP_VCPU_EVENTS:
    case KVM_CAP_X86_ROBUST_SINGLESTEP:
    case KVM_CAP_ADJUST_CLOCK:
    case KVM_CAP_SET_IDENTITY_MAP_ADDR:
    case KVM_CAP_IMMEDIATE_EXIT:
    case KVM_CAP_SPLIT_IRQCHIP:
    case KVM_CAP_IRQFD:
    case KVM_CAP_IRQCHIP:
    case KVM_CAP_XCRS:
    case KVM_CAP_GET_TSC_KHZ:
    case KVM_CAP_TSC_CONTROL:
    case KVM_CAP_IRQ_INJECT_STATUS:
    case KVM_CAP_PIT2:
    case KVM_CAP_PIT_STATE2:
        return 1;
    case KVM_CAP_XSAVE2: {
        /* the XSAVE size of the CPUID above, at least the legacy 4K */
        unsigned int a, b, c, d;

        __cpuid_count(0xd, 0, a, b, c, d);
        return c > sizeof(struct kvm_xsave) ? c : sizeof(struct kvm_xsave);
    }
    case KVM_CAP_NR_VCPUS:
    case KVM_CAP_MAX_VCPUS:
    case KVM_CAP_MAX_VCPU_ID:
        return MAX_VCPUS;
    case KVM_CAP_NR_MEMSLOTS:
        return MAX_SLOTS;
    case KVM_CAP_IRQ_ROUTING:
        return 1024;            /* GSIs */
    case KVM_CAP_MCE:
        return 32;              /* banks */
    case KVM_CAP_EXIT_HYPERCALL:
        /* KVM_HC_MAP_GPA_RANGE (12), and 13-15 with planes */
        return model_has_planes() ? 0xf000 : 0x1000;
    case KVM_CAP_MEMORY_ATTRIBUTES:
        if (m.kernel == KERNEL_RFC) {
            return scope == SCOPE_PLANE ?
                   (int)(KVM_MEMORY_ATTRIBUTE_NO_WRITE |
                         KVM_MEMORY_ATTRIBUTE_NO_EXEC) : 0;
        }
        return scope == SCOPE_SYSTEM ? 0 : (int)model_mem_attributes();
    default:
        if (cap == KVM_CAP_PLANES) {
            return model_cap_planes(scope);
        }
        return 0;
    }
}

static int model_supported_cpuid(struct kvm_cpuid2 *c)
{
    static const uint32_t bases[] = { 0, 0x80000000 };
    uint32_t n = 0;

    for (int b = 0; b < 2; b++) {
        uint32_t max = __get_cpuid_max(bases[b], NULL);

        if (max > bases[b] + 0x20) {
            max = bases[b] + 0x20;
        }
        for (uint32_t leaf = bases[b]; leaf <= max; leaf++) {
            struct kvm_cpuid_entry2 *e;

            if (n >= c->nent) {
                errno = E2BIG;
                return -1;
            }
            e = &c->entries[n++];
            memset(e, 0, sizeof(*e));
            e->function = leaf;
            if (leaf == 4 || leaf == 7 || leaf == 0xb || leaf == 0xd) {
                e->flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX;
            }
            __cpuid_count(leaf, 0, e->eax, e->ebx, e->ecx, e->edx);
            if (leaf == 1) {
                e->ecx &= ~(1u << 5);   /* no VMX */
                e->ecx |= 1u << 21 | 1u << 31;  /* x2APIC, a hypervisor */
            }
            if (leaf == 0x80000001) {
                e->ecx &= ~(1u << 2);   /* no SVM */
                e->ecx |= 1u << 1;      /* CmpLegacy */
            }
        }
    }
    /* KVM's own leaves: its signature and paravirtual features */
    for (uint32_t leaf = 0x40000000; leaf <= 0x40000001; leaf++) {
        struct kvm_cpuid_entry2 *e;

        if (n >= c->nent) {
            errno = E2BIG;
            return -1;
        }
        e = &c->entries[n++];
        memset(e, 0, sizeof(*e));
        e->function = leaf;
        if (leaf == 0x40000000) {
            e->eax = 0x40000001;
            memcpy(&e->ebx, "KVMK", 4);
            memcpy(&e->ecx, "VMKV", 4);
            memcpy(&e->edx, "M\0\0\0", 4);
        } else {
            e->eax = 0x0100007b;        /* kvmclock and friends */
        }
    }
    c->nent = n;
    return 0;
}

static const uint32_t model_msrs[] = {
    0x10, 0x1b, 0x3b, 0x174, 0x175, 0x176, 0x277, 0xc0000080, 0xc0000081,
    0xc0000082, 0xc0000083, 0xc0000084, 0xc0000100, 0xc0000101,
    0xc0000102, 0xc0000103,
};

static int model_msr_list(struct kvm_msr_list *l, bool features)
{
    uint32_t n = features ? 0 : sizeof(model_msrs) / sizeof(model_msrs[0]);

    if (l->nmsrs < n) {
        l->nmsrs = n;
        errno = E2BIG;
        return -1;
    }
    l->nmsrs = n;
    memcpy(l->indices, model_msrs, n * sizeof(model_msrs[0]));
    return 0;
}

static int model_system_ioctl(unsigned long req, void *arg)
{
    switch (req) {
    case KVM_GET_API_VERSION:
        return KVM_API_VERSION;
    case KVM_CHECK_EXTENSION:
        return model_check_extension((long)arg, SCOPE_SYSTEM);
    case KVM_CREATE_VM:
        return model_new_fd(FD_VM);
    case KVM_GET_VCPU_MMAP_SIZE:
        return RUN_SIZE;
    case KVM_GET_SUPPORTED_CPUID:
        return model_supported_cpuid(arg);
    case KVM_GET_EMULATED_CPUID:
        ((struct kvm_cpuid2 *)arg)->nent = 0;
        return 0;
    case KVM_GET_MSR_INDEX_LIST:
        return model_msr_list(arg, false);
    case KVM_GET_MSR_FEATURE_INDEX_LIST:
        return model_msr_list(arg, true);
    case KVM_GET_MSRS:
        return 0;
    case KVM_X86_GET_MCE_CAP_SUPPORTED:
        *(uint64_t *)arg = 0x0a | (1 << 8) | (1 << 24);
        return 0;
    default:
        errno = ENXIO;          /* KVM_HAS_DEVICE_ATTR and friends */
        return -1;
    }
}

/* ---- the VM and plane fds --------------------------------------------- */

/* A vCPU and its fd (returned), whose pages are its kvm_run. */
static int model_new_vcpu(unsigned int plane, unsigned long id)
{
    Vcpu *v = calloc(1, sizeof(*v));
    int fd = model_new_fd(FD_VCPU);

    if (fd < 0 || ftruncate(fd, RUN_SIZE) < 0) {
        return -1;
    }
    v->plane = plane;
    v->id = id;
    v->owner = plane ? m.vcpu[0][id]->owner : model_tid();
    v->run = mmap(NULL, RUN_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    m.fds[fd].vcpu = v;
    m.vcpu[plane][id] = v;
    if (!plane) {
        char name[32];
        const char *script;

        snprintf(name, sizeof(name), "KVM_MODEL_SCRIPT%lu", id);
        script = getenv(name);
        if (script && *script) {
            char *copy = strdup(script), *save = NULL;

            for (char *s = strtok_r(copy, ",", &save); s;
                 s = strtok_r(NULL, ",", &save)) {
                v->steps = realloc(v->steps,
                                   (v->nr_steps + 1) * sizeof(*v->steps));
                v->steps[v->nr_steps++] = s;
            }
        }
    }
    model_log("vcpu plane=%u id=%lu fd=%d tid=%d", plane, id, fd,
              (int)model_tid());
    return fd;
}

static int model_set_memory_region(const struct kvm_userspace_memory_region *r)
{
    unsigned int slot = r->slot & 0xffff;

    if (r->slot >> 16) {
        return 0;               /* another address space (SMM): unused */
    }
    if (slot >= MAX_SLOTS) {
        errno = EINVAL;
        return -1;
    }
    m.slots[slot] = (Slot) {
        .gpa = r->guest_phys_addr,
        .size = r->memory_size,
        .hva = r->userspace_addr,
    };
    return 0;
}

/*
 * KVM_CAP_SPLIT_IRQCHIP: EEXIST once an irqchip or a plane exists, or a
 * vCPU (kvm_vm_ioctl_enable_cap(), arch/x86/kvm/x86.c; the plane case
 * from [PATCH 54/60]).
 */
static int model_split_irqchip(void)
{
    if (m.split_irqchip || m.full_irqchip || m.has_planes ||
        m.created_vcpus) {
        return model_refuse(EEXIST, "KVM_ENABLE_CAP(KVM_CAP_SPLIT_IRQCHIP) "
                            "with %s", m.has_planes ? "a plane" :
                            m.created_vcpus ? "vCPUs" : "an irqchip");
    }
    m.split_irqchip = true;
    model_log("irqchip split");
    return 0;
}

/*
 * KVM_CREATE_IRQCHIP: EINVAL once a vCPU or a plane exists
 * (kvm_arch_vm_ioctl(), arch/x86/kvm/x86.c; the plane case from [PATCH
 * 54/60]), EEXIST on a second irqchip.
 */
static int model_create_irqchip(void)
{
    if (m.created_vcpus || m.has_planes) {
        return model_refuse(EINVAL, "KVM_CREATE_IRQCHIP with %s",
                            m.has_planes ? "a plane" : "vCPUs");
    }
    if (m.split_irqchip || m.full_irqchip) {
        return model_refuse(EEXIST, "KVM_CREATE_IRQCHIP twice");
    }
    m.full_irqchip = true;
    model_log("irqchip full");
    return 0;
}

static int model_enable_cap(const struct kvm_enable_cap *cap)
{
    if (cap->cap == KVM_CAP_EXIT_HYPERCALL) {
        uint64_t ok = model_check_extension(KVM_CAP_EXIT_HYPERCALL, SCOPE_VM);

        if (cap->args[0] & ~ok) {
            errno = EINVAL;
            return -1;
        }
        m.exit_hypercalls = cap->args[0];
        model_log("exit-hypercalls 0x%llx", (unsigned long long)cap->args[0]);
    } else if (cap->cap == KVM_CAP_SPLIT_IRQCHIP) {
        return model_split_irqchip();
    }
    return 0;
}

/*
 * kvm_vm_ioctl_create_plane() (virt/kvm/kvm_main.c, "kvm: Implement
 * KVM_CREATE_PLANE ioctl" and [PATCH 54/60]): EINVAL for an id at or
 * above KVM_CAP_PLANES (1 without a split irqchip) or without an
 * in-kernel irqchip, EEXIST for a plane that exists (plane 0 always).
 */
static int model_create_plane(unsigned long id)
{
    int max = model_cap_planes(SCOPE_VM);
    int fd;

    if (!model_has_planes()) {
        errno = ENOTTY;
        return -1;
    }
    if (id >= (unsigned long)max || id >= MAX_PLANES) {
        return model_refuse(EINVAL, "KVM_CREATE_PLANE %lu: KVM_CAP_PLANES "
                            "is %d (%s irqchip)", id, max,
                            m.split_irqchip ? "split" :
                            m.full_irqchip ? "full" : "no");
    }
    if (!m.split_irqchip && !m.full_irqchip) {
        return model_refuse(EINVAL, "KVM_CREATE_PLANE %lu without an "
                            "in-kernel irqchip", id);
    }
    if (id == 0 || m.plane_fd[id]) {
        return model_refuse(EEXIST, "KVM_CREATE_PLANE %lu: plane %lu exists",
                            id, id);
    }
    fd = model_new_fd(FD_PLANE);
    if (fd >= 0) {
        m.fds[fd].plane = id;
        m.plane_fd[id] = true;
        m.has_planes = true;
        model_log("plane %lu fd=%d", id, fd);
    }
    return fd;
}

/*
 * KVM_SET_MEMORY_ATTRIBUTES on the VM fd: kvm_vm_ioctl_set_mem_attributes()
 * (virt/kvm/kvm_main.c) takes page-aligned, non-empty ranges of supported
 * attributes and no flags.  QEMU sets none (the seal is plane 1's, HC 17),
 * but the kernel would take NO_WRITE|NO_EXEC.
 */
static int model_vm_mem_attributes(const struct kvm_memory_attributes *a)
{
    if (a->flags || !a->size || (a->address | a->size) & 0xfff ||
        a->attributes & ~model_mem_attributes()) {
        return model_refuse(EINVAL, "KVM_SET_MEMORY_ATTRIBUTES 0x%llx+0x%llx "
                            "attributes 0x%llx flags 0x%llx on the VM fd",
                            (unsigned long long)a->address,
                            (unsigned long long)a->size,
                            (unsigned long long)a->attributes,
                            (unsigned long long)a->flags);
    }
    model_log("vm memory-attributes 0x%llx+0x%llx 0x%llx",
              (unsigned long long)a->address, (unsigned long long)a->size,
              (unsigned long long)a->attributes);
    return 0;
}

static int model_vm_ioctl(unsigned long req, void *arg)
{
    switch (req) {
    case KVM_CHECK_EXTENSION:
        return model_check_extension((long)arg, SCOPE_VM);
    case KVM_CREATE_VCPU: {
        unsigned long id = (unsigned long)arg;

        if (id >= MAX_VCPUS || m.vcpu[0][id]) {
            errno = EEXIST;
            return -1;
        }
        m.created_vcpus++;
        return model_new_vcpu(0, id);
    }
    case KVM_SET_USER_MEMORY_REGION:
        return model_set_memory_region(arg);
    case KVM_SET_USER_MEMORY_REGION2:
        return model_set_memory_region(arg);
    case KVM_ENABLE_CAP:
        return model_enable_cap(arg);
    case KVM_CREATE_IRQCHIP:
        return model_create_irqchip();
    case KVM_CREATE_PLANE:
        return model_create_plane((unsigned long)arg);
    case KVM_GET_CLOCK:
        memset(arg, 0, sizeof(struct kvm_clock_data));
        return 0;
    case KVM_GET_DIRTY_LOG:
        return 0;
    case KVM_SIGNAL_MSI:
        return 1;
    case KVM_IRQ_LINE_STATUS:
        ((struct kvm_irq_level *)arg)->status = 1;
        return 0;
    case KVM_SET_MEMORY_ATTRIBUTES:
        return model_vm_mem_attributes(arg);
    default:
        /* stock VM set-up: TSS, identity map, routing, irqfd, ioeventfd */
        return 0;
    }
}

/*
 * KVM_CREATE_VCPU on a plane fd (kvm_plane_ioctl_create_vcpu(),
 * virt/kvm/kvm_main.c, "KVM: Implement KVM_CREATE_VCPU ioctl for planes"):
 * EINVAL without the plane-0 vCPU of that id, EEXIST for a second one.
 * The new vCPU is runnable only if it is the boot vCPU (id 0): any other
 * waits for INIT (kvm_arch_vcpu_create(), arch/x86/kvm/x86.c, with an
 * in-kernel local APIC), and KVM_SET_MP_STATE is not among the ioctls a
 * plane vCPU takes (kvm_is_vcpu_plane_ioctl()).
 */
static int model_create_plane_vcpu(Fd *f, unsigned long id)
{
    int fd;

    if (m.kernel != KERNEL_SEED) {
        errno = ENOTTY;
        return -1;
    }
    if (id >= MAX_VCPUS || !m.vcpu[0][id]) {
        return model_refuse(EINVAL, "plane %u KVM_CREATE_VCPU %lu: no "
                            "plane-0 vCPU %lu", f->plane, id, id);
    }
    if (m.vcpu[f->plane][id]) {
        return model_refuse(EEXIST, "plane %u KVM_CREATE_VCPU %lu twice",
                            f->plane, id);
    }
    /*
     * QEMU's own rule, not a kernel check (the kernel would link the
     * shared preempt notifier onto two tasks and risk a host lockup):
     * only the index's thread touches a plane vCPU.
     */
    if (model_tid() != m.vcpu[0][id]->owner) {
        return model_refuse(EINVAL, "plane %u KVM_CREATE_VCPU %lu from "
                            "thread %d, not vCPU %lu's thread %d "
                            "(QEMU's rule)", f->plane, id, (int)model_tid(),
                            id, (int)m.vcpu[0][id]->owner);
    }
    fd = model_new_vcpu(f->plane, id);
    if (fd >= 0) {
        m.vcpu[f->plane][id]->runnable = id == 0;
    }
    return fd;
}

/*
 * A plane fd (__kvm_plane_ioctl(), virt/kvm/kvm_main.c): KVM_CHECK_EXTENSION
 * (lvbs 0036), KVM_CREATE_VCPU, KVM_SIGNAL_MSI and KVM_SET_GSI_ROUTING for
 * the plane's interrupts ("kvm: Make KVM_SIGNAL_MSI per plane", "kvm: Make
 * KVM_SET_GSI_ROUTING per plane"); anything else is ENOTTY.
 */
static int model_plane_ioctl(Fd *f, unsigned long req, void *arg)
{
    switch (req) {
    case KVM_CHECK_EXTENSION:
        return model_check_extension((long)arg, SCOPE_PLANE);
    case KVM_CREATE_VCPU:
        return model_create_plane_vcpu(f, (unsigned long)arg);
    case KVM_SIGNAL_MSI:
        model_log("plane %u msi 0x%x", f->plane,
                  ((struct kvm_msi *)arg)->data);
        return 1;
    case KVM_SET_GSI_ROUTING: {
        struct kvm_irq_routing *r = arg;

        if (r->flags || r->nr > 4096) {
            return model_refuse(EINVAL, "plane %u KVM_SET_GSI_ROUTING nr %u "
                                "flags 0x%x", f->plane, r->nr, r->flags);
        }
        model_log("plane %u gsi-routing %u", f->plane, r->nr);
        return 0;
    }
    case KVM_CREATE_VCPU_PLANE:
        if (m.kernel == KERNEL_RFC) {
            errno = EBADF;      /* the RFC's: a plane-0 vCPU fd expected */
            return -1;
        }
        model_log("probe KVM_CREATE_VCPU_PLANE on a plane fd: ENOTTY");
        errno = ENOTTY;
        return -1;
    case KVM_SET_MEMORY_ATTRIBUTES:
        if (m.kernel == KERNEL_SEED) {
            return model_refuse(ENOTTY, "KVM_SET_MEMORY_ATTRIBUTES on plane "
                                "%u's fd: the seed kernel takes plane "
                                "attributes from HC 17 only", f->plane);
        }
        return 0;
    default:
        return model_refuse(ENOTTY, "ioctl 0x%lx on plane %u's fd", req,
                            f->plane);
    }
}

/* ---- vCPU state ------------------------------------------------------- */

static void model_set_msrs(Vcpu *v, const struct kvm_msrs *msrs)
{
    for (uint32_t i = 0; i < msrs->nmsrs; i++) {
        unsigned int j;

        for (j = 0; j < v->nr_msrs; j++) {
            if (v->msrs[j].index == msrs->entries[i].index) {
                break;
            }
        }
        if (j == v->nr_msrs && v->nr_msrs < MAX_MSRS) {
            v->nr_msrs++;
        }
        if (j < MAX_MSRS) {
            v->msrs[j] = msrs->entries[i];
        }
    }
}

static void model_get_msrs(Vcpu *v, struct kvm_msrs *msrs)
{
    for (uint32_t i = 0; i < msrs->nmsrs; i++) {
        msrs->entries[i].data = 0;
        for (unsigned int j = 0; j < v->nr_msrs; j++) {
            if (v->msrs[j].index == msrs->entries[i].index) {
                msrs->entries[i].data = v->msrs[j].data;
            }
        }
    }
}

/* KVM_GET_SREGS2/KVM_SET_SREGS2 on the state KVM_*_SREGS keep. */
static void model_sregs2(Vcpu *v, struct kvm_sregs2 *s2, bool set)
{
    struct kvm_sregs *s = &v->sregs;

    if (set) {
        memcpy(&s->cs, &s2->cs, offsetof(struct kvm_sregs, interrupt_bitmap));
        v->sregs_set = true;
    } else {
        memset(s2, 0, sizeof(*s2));
        memcpy(&s2->cs, &s->cs, offsetof(struct kvm_sregs, interrupt_bitmap));
    }
}

/*
 * The state ioctls, common to both kinds of vCPU fd; -2: not one.  On a
 * plane vCPU these are what kvm_is_vcpu_plane_ioctl() (virt/kvm/
 * kvm_main.c) and kvm_arch_is_vcpu_plane_ioctl() (arch/x86/kvm/x86.c)
 * allow ("KVM: Implement KVM_CREATE_VCPU ioctl for planes"); the rest is
 * EINVAL there.
 */
static int model_state_ioctl(Vcpu *v, unsigned long req, void *arg)
{
    switch (req) {
    case KVM_GET_SREGS2:
    case KVM_SET_SREGS2:
        model_sregs2(v, arg, req == KVM_SET_SREGS2);
        return 0;
    case KVM_GET_REG_LIST: {
        struct kvm_reg_list *l = arg;

        l->n = 0;               /* x86 lists no ONE_REG registers */
        return 0;
    }
    case KVM_GET_REGS:
        *(struct kvm_regs *)arg = v->regs;
        return 0;
    case KVM_SET_REGS:
        v->regs = *(struct kvm_regs *)arg;
        v->regs_set = true;
        return 0;
    case KVM_GET_SREGS:
        *(struct kvm_sregs *)arg = v->sregs;
        return 0;
    case KVM_SET_SREGS:
        v->sregs = *(struct kvm_sregs *)arg;
        v->sregs_set = true;
        return 0;
    case KVM_GET_MSRS:
        model_get_msrs(v, arg);
        return ((struct kvm_msrs *)arg)->nmsrs;
    case KVM_SET_MSRS:
        model_set_msrs(v, arg);
        return ((struct kvm_msrs *)arg)->nmsrs;
    case KVM_GET_FPU:
    case KVM_GET_LAPIC:
    case KVM_GET_DEBUGREGS:
    case KVM_GET_VCPU_EVENTS:
        memset(arg, 0, req == KVM_GET_FPU ? sizeof(struct kvm_fpu) :
               req == KVM_GET_LAPIC ? sizeof(struct kvm_lapic_state) :
               req == KVM_GET_DEBUGREGS ? sizeof(struct kvm_debugregs) :
               sizeof(struct kvm_vcpu_events));
        return 0;
    case KVM_GET_XSAVE:
    case KVM_GET_XSAVE2:        /* of KVM_CAP_XSAVE2 bytes: the legacy 4K */
        memset(arg, 0, sizeof(struct kvm_xsave));
        return 0;
    case KVM_GET_XCRS: {
        struct kvm_xcrs *x = arg;

        memset(x, 0, sizeof(*x));
        x->nr_xcrs = 1;
        x->xcrs[0].value = 1;
        return 0;
    }
    case KVM_SET_FPU:
    case KVM_SET_LAPIC:
    case KVM_SET_XSAVE:
    case KVM_SET_XCRS:
    case KVM_SET_DEBUGREGS:
    case KVM_SET_VCPU_EVENTS:
    case KVM_GET_ONE_REG:
    case KVM_SET_ONE_REG:
    case KVM_GET_NESTED_STATE:
    case KVM_SET_NESTED_STATE:
    case KVM_TRANSLATE:
        return 0;
    default:
        return -2;
    }
}

static const char *model_ioctl_name(unsigned long req)
{
    switch (req) {
    case KVM_RUN: return "KVM_RUN";
    case KVM_SET_CPUID2: return "KVM_SET_CPUID2";
    case KVM_X86_SETUP_MCE: return "KVM_X86_SETUP_MCE";
    case KVM_SET_MP_STATE: return "KVM_SET_MP_STATE";
    case KVM_GET_MP_STATE: return "KVM_GET_MP_STATE";
    case KVM_SET_SIGNAL_MASK: return "KVM_SET_SIGNAL_MASK";
    case KVM_SET_TSC_KHZ: return "KVM_SET_TSC_KHZ";
    default: return "ioctl";
    }
}

/* Plane >= 1: state get/set only, and only from the index's thread. */
static int model_plane_vcpu_ioctl(Vcpu *v, unsigned long req, void *arg)
{
    int r;

    if (model_tid() != v->owner) {
        return model_refuse(EINVAL, "%s 0x%lx on plane %u vCPU %lu from "
                            "thread %d, not the index's thread %d",
                            model_ioctl_name(req), req, v->plane, v->id,
                            (int)model_tid(), (int)v->owner);
    }
    r = model_state_ioctl(v, req, arg);
    if (r == -2) {
        return model_refuse(EINVAL, "%s 0x%lx on plane %u vCPU %lu's fd",
                            model_ioctl_name(req), req, v->plane, v->id);
    }
    return r;
}

/* ---- plane 0's scripted KVM_RUN --------------------------------------- */

/* What the kernel checks when it first switches to plane 1 on @id. */
static void model_enter_plane1(unsigned long id)
{
    Vcpu *p1 = m.vcpu[1][id];
    uint64_t top = m.region_base + m.region_size;
    const uint8_t *array = model_gpa(m.array, 2 * CONFIG_ENTRY);
    uint64_t entry = 0, *gdt;
    bool ok;

    if (array) {
        memcpy(&entry, array + CONFIG_ENTRY + CONFIG_ENTRY_POINT, 8);
    }
    /* a plane the host launched (no ACTIVATE): the test says its entry */
    entry = env_u64("KVM_MODEL_ENTRY", entry);
    gdt = model_gpa(p1->sregs.gdt.base, 24);
    ok = p1->regs_set && p1->sregs_set &&
         p1->regs.rip == entry && p1->regs.rsp == top &&
         p1->regs.rsi == top - BOOT_PARAMS && p1->regs.rflags == 0x2 &&
         p1->sregs.cr0 == 0x80010031 && p1->sregs.cr4 == 0x20 &&
         p1->sregs.cr3 == top - BOOT_PAGETABLES &&
         p1->sregs.efer == 0xd01 &&
         /* the plane's BSP is the index it boots on */
         p1->sregs.apic_base == 0xfee00900 &&
         p1->sregs.cs.l == 1 && p1->sregs.cs.selector == 0x08 &&
         p1->sregs.ds.selector == 0x10 &&
         p1->sregs.gdt.base == top - BOOT_GDT && gdt &&
         gdt[1] == 0x00af9b000000ffffULL;
    model_log("plane1 enter vcpu=%lu %s rip=0x%llx rsp=0x%llx rsi=0x%llx "
              "rflags=0x%llx cr0=0x%llx cr3=0x%llx cr4=0x%llx efer=0x%llx "
              "apic_base=0x%llx cs=0x%x/l%d gdt=0x%llx", id,
              ok ? "ok" : "BAD", (unsigned long long)p1->regs.rip,
              (unsigned long long)p1->regs.rsp,
              (unsigned long long)p1->regs.rsi,
              (unsigned long long)p1->regs.rflags,
              (unsigned long long)p1->sregs.cr0,
              (unsigned long long)p1->sregs.cr3,
              (unsigned long long)p1->sregs.cr4,
              (unsigned long long)p1->sregs.efer,
              (unsigned long long)p1->sregs.apic_base, p1->sregs.cs.selector,
              p1->sregs.cs.l, (unsigned long long)p1->sregs.gdt.base);
    if (!ok) {
        model_refuse(0, "plane 1 vCPU %lu entered with a wrong boot state",
                     id);
    }
}

static void model_exit_hypercall(Vcpu *v, uint64_t nr, uint64_t a0,
                                 uint64_t a1)
{
    struct kvm_run *run = v->run;

    run->exit_reason = KVM_EXIT_HYPERCALL;
    memset(&run->hypercall, 0, sizeof(run->hypercall));
    run->hypercall.nr = nr;
    run->hypercall.args[0] = a0;
    run->hypercall.args[1] = a1;
    run->hypercall.flags = KVM_EXIT_HYPERCALL_LONG_MODE;
    v->last_nr = nr;
}

static void model_write_config(void)
{
    uint8_t *array = model_gpa(m.array, 2 * CONFIG_ENTRY);
    uint8_t *e1 = array + CONFIG_ENTRY;
    uint64_t entry = m.region_base + 0x1000;

    if (!array) {
        model_refuse(0, "config array 0x%llx not in guest RAM",
                     (unsigned long long)m.array);
        return;
    }
    memset(array, 0, 2 * CONFIG_ENTRY);
    memcpy(e1, &m.region_base, 8);
    memcpy(e1 + 8, &m.region_size, 8);
    memcpy(e1 + CONFIG_ENTRY_POINT, &entry, 8);
    strcpy((char *)e1 + CONFIG_CMDLINE, "console=ttyS1");
}

/* Whether the wait step @s is over; true for steps that do not wait. */
static bool model_wait_done(const char *s)
{
    if (!strcmp(s, "await-plane1")) {
        for (int i = 0; i < MAX_VCPUS; i++) {
            if (m.vcpu[1][i]) {
                return true;
            }
        }
        return false;
    }
    if (!strcmp(s, "await-go")) {
        const char *go = getenv("KVM_MODEL_GO");

        return go && access(go, F_OK) == 0;
    }
    return true;
}

/* An I/O exit of one byte, @data for an OUT. */
static void model_exit_io(struct kvm_run *run, bool out, uint16_t port,
                          uint8_t data)
{
    run->exit_reason = KVM_EXIT_IO;
    run->io.direction = out ? KVM_EXIT_IO_OUT : KVM_EXIT_IO_IN;
    run->io.size = 1;
    run->io.port = port;
    run->io.count = 1;
    run->io.data_offset = IO_DATA_OFFSET;
    *((uint8_t *)run + IO_DATA_OFFSET) = out ? data : 0;
}

/*
 * A step of plane 1 while it runs on @v's index ("p1-..."): the exits it
 * causes arrive on plane 0's vCPU fd, whose kvm_run the plane-1 vCPU
 * shares (vcpu->run = vcpu->common->run, kvm_plane_ioctl_create_vcpu()),
 * and the next KVM_RUN goes on in plane 1.  Returns 1 for an exit.
 *   p1-out:PORT:BYTE      OUT of a byte
 *   p1-in:PORT            IN of a byte (logged at completion)
 *   p1-mmio-write:GPA:VAL MMIO write of 4 bytes
 *   p1-mmio-read:GPA      MMIO read of 4 bytes (logged at completion)
 *   p1-shutdown           KVM_EXIT_SHUTDOWN (a triple fault of plane 1)
 */
static int model_step_plane1(Vcpu *v, const char *s)
{
    struct kvm_run *run = v->run;
    unsigned int a = 0, b = 0;

    if (sscanf(s, "p1-out:%i:%i", &a, &b) == 2) {
        model_exit_io(run, true, a, b);
    } else if (sscanf(s, "p1-in:%i", &a) == 1) {
        model_exit_io(run, false, a, 0);
    } else if (sscanf(s, "p1-mmio-write:%i:%i", &a, &b) == 2 ||
               sscanf(s, "p1-mmio-read:%i", &a) == 1) {
        run->exit_reason = KVM_EXIT_MMIO;
        run->mmio.phys_addr = a;
        run->mmio.len = 4;
        run->mmio.is_write = !strncmp(s, "p1-mmio-write", 13);
        memset(run->mmio.data, 0, sizeof(run->mmio.data));
        memcpy(run->mmio.data, &b, 4);
    } else if (!strcmp(s, "p1-shutdown")) {
        run->exit_reason = KVM_EXIT_SHUTDOWN;
    } else {
        model_refuse(0, "unknown plane-1 step '%s'", s);
        return 0;
    }
    model_log("plane1 exit vcpu=%lu %s", v->id, s);
    v->last_exit = run->exit_reason;
    return 1;
}

/*
 * HC 15 from plane 0 with a plane-1 vCPU on the index: the kernel
 * switches to it (KVM_HC_VBS_VTL_CALL in ____kvm_emulate_hypercall(),
 * arch/x86/kvm/x86.c, lvbs 0028).  Plane 1 then plays its "p1-" steps
 * and returns (HC 16, in the kernel too).  A vCPU that waits for INIT
 * never runs: plane 0's call would hang, so the model flags it and
 * wedges the index.
 */
static void model_vtl_call_in_kernel(Vcpu *v)
{
    Vcpu *p1 = m.vcpu[1][v->id];

    if (!p1->runnable) {
        model_refuse(0, "VTL call on vCPU %lu enters plane 1's vCPU %lu, "
                     "which waits for INIT: the kernel makes only the boot "
                     "vCPU's (id 0) runnable", v->id, v->id);
        v->wedged = true;
        return;
    }
    model_enter_plane1(v->id);
    v->in_plane1 = true;
}

/* Plane 1 returns to plane 0 on @v's index (HC 16 in the kernel). */
static void model_plane1_returns(Vcpu *v)
{
    v->in_plane1 = false;
    model_log("vcpu %lu hc 15 handled in the kernel", v->id);
    v->regs.rax = 0;
}

/* The next step of @v's script, past the wait steps that are over. */
static const char *model_next_step(Vcpu *v)
{
    for (;;) {
        const char *s;

        if (v->wedged || v->step >= v->nr_steps) {
            return NULL;
        }
        s = v->steps[v->step];
        if (strncmp(s, "await-", 6)) {
            return s;
        }
        if (!model_wait_done(s)) {
            return NULL;
        }
        model_log("vcpu %lu step %s", v->id, s);
        v->step++;
    }
}

/*
 * One step of plane 0's script, on entry to KVM_RUN.  Returns 1 for an
 * exit to userspace, 0 to idle (until QEMU kicks the vCPU, or a wait step
 * is over).
 *   config, activate      HC 13, HC 14 with the array at KVM_MODEL_ARRAY
 *   vtlcall               HC 15 with KVM_MODEL_CA: exits while no plane-1
 *                         vCPU exists on the index, else the kernel enters
 *                         plane 1 (checked), which plays the "p1-" steps
 *                         that follow, see model_step_plane1(), and returns
 *   await-plane1          wait until a plane-1 vCPU exists (any index)
 *   await-go              wait until the file KVM_MODEL_GO exists
 *   fault                 KVM_EXIT_MEMORY_FAULT on plane 1's region
 *   fault-ram             KVM_EXIT_MEMORY_FAULT on plane 0's RAM at 2 MiB
 *   reset                 KVM_EXIT_SYSTEM_EVENT RESET
 *   exit                  out 0xf4 (isa-debug-exit), value 0
 */
static int model_step(Vcpu *v)
{
    struct kvm_run *run = v->run;
    const char *s = model_next_step(v);

    if (v->in_plane1 && (!s || strncmp(s, "p1-", 3))) {
        model_plane1_returns(v);
    }
    if (!s) {
        return 0;
    }
    v->step++;
    model_log("vcpu %lu step %s", v->id, s);
    if (!strncmp(s, "p1-", 3) && v->in_plane1) {
        return model_step_plane1(v, s);
    } else if (!strcmp(s, "config")) {
        model_write_config();
        model_exit_hypercall(v, HC_CONFIG, m.array, 2);
    } else if (!strcmp(s, "activate")) {
        model_exit_hypercall(v, HC_ACTIVATE, m.array, 2);
    } else if (!strcmp(s, "vtlcall")) {
        if (m.kernel == KERNEL_SEED && m.vcpu[1][v->id]) {
            model_vtl_call_in_kernel(v);
            return model_step(v);
        }
        if (!(m.exit_hypercalls & (1ULL << HC_VTL_CALL))) {
            model_log("vcpu %lu hc 15 ret %d (no exit)", v->id, -1000);
            return model_step(v);
        }
        model_exit_hypercall(v, HC_VTL_CALL, m.ca, 0);
    } else if (!strncmp(s, "fault", 5)) {
        run->exit_reason = KVM_EXIT_MEMORY_FAULT;
        run->memory_fault.flags = 0;
        run->memory_fault.gpa = strcmp(s, "fault-ram") ? m.region_base :
                                0x200000;
        run->memory_fault.size = 4096;
    } else if (!strcmp(s, "reset")) {
        run->exit_reason = KVM_EXIT_SYSTEM_EVENT;
        memset(&run->system_event, 0, sizeof(run->system_event));
        run->system_event.type = KVM_SYSTEM_EVENT_RESET;
    } else if (!strcmp(s, "exit")) {
        model_exit_io(run, true, 0xf4, 0);
    } else {
        model_refuse(0, "unknown script step '%s'", s);
        return 0;
    }
    v->last_exit = run->exit_reason;
    /* plane 0 got somewhere: a reset shows as a return to 0xfff0 */
    v->regs.rip = 0x100000 + v->step * 4;
    return 1;
}

/* The previous exit's completion, as the kernel takes it on re-entry. */
static void model_complete_exit(Vcpu *v)
{
    struct kvm_run *run = v->run;

    if (v->in_plane1 && run->exit_reason == KVM_EXIT_IO &&
        run->io.direction == KVM_EXIT_IO_IN) {
        model_log("plane1 io-in vcpu=%lu port 0x%x data 0x%x", v->id,
                  run->io.port, *((uint8_t *)run + run->io.data_offset));
    } else if (v->in_plane1 && run->exit_reason == KVM_EXIT_MMIO &&
               !run->mmio.is_write) {
        uint32_t data;

        memcpy(&data, run->mmio.data, 4);
        model_log("plane1 mmio-read vcpu=%lu 0x%llx data 0x%x", v->id,
                  (unsigned long long)run->mmio.phys_addr, data);
    } else if (v->last_exit == KVM_EXIT_HYPERCALL) {
        int64_t ret = (int64_t)run->hypercall.ret;

        model_log("vcpu %lu hc %llu ret %lld", v->id,
                  (unsigned long long)v->last_nr, (long long)ret);
        v->regs.rax = ret;
    }
    v->last_exit = 0;
}

/*
 * As the kernel runs a guest that exits to nobody: with QEMU's signal
 * mask for KVM_RUN, until kicked (false), or until the script's current
 * wait step is over (true).
 */
static bool model_idle(Vcpu *v)
{
    bool waited = false;
    sigset_t old;

    if (v->has_run_mask) {
        pthread_sigmask(SIG_SETMASK, &v->run_mask, &old);
    }
    while (!__atomic_load_n(&v->run->immediate_exit, __ATOMIC_SEQ_CST)) {
        struct timespec ts = { 0, 2 * 1000 * 1000 };

        if (v->step < v->nr_steps && model_wait_done(v->steps[v->step])) {
            waited = true;
            break;
        }
        nanosleep(&ts, NULL);
    }
    if (v->has_run_mask) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    return waited;
}

static int model_run(Vcpu *v)
{
    v->ran = true;
    if (v->last_exit) {
        model_complete_exit(v);
    }
    do {
        if (__atomic_load_n(&v->run->immediate_exit, __ATOMIC_SEQ_CST)) {
            break;
        }
        if (model_step(v)) {
            if (v->run->exit_reason == KVM_EXIT_MEMORY_FAULT) {
                v->last_exit = 0;
                errno = EFAULT;     /* how KVM_RUN reports it */
                return -1;
            }
            return 0;
        }
    } while (model_idle(v));
    errno = EINTR;
    return -1;
}

/* A reset puts the vCPU at the reset vector: plane 0's script restarts. */
static void model_note_reset(Vcpu *v)
{
    /* QEMU loads the reset state before the first KVM_RUN too */
    if (v->ran && v->regs.rip == 0xfff0 && v->sregs.cs.base == 0xffff0000) {
        model_log("vcpu %lu reset %u", v->id, ++v->resets);
    }
}

static int model_vcpu_ioctl(Vcpu *v, unsigned long req, void *arg)
{
    int r;

    if (v->plane) {
        return model_plane_vcpu_ioctl(v, req, arg);
    }
    switch (req) {
    case KVM_RUN:
        return model_run(v);
    case KVM_SET_SIGNAL_MASK: {
        struct kvm_signal_mask *sm = arg;

        sigemptyset(&v->run_mask);
        memcpy(&v->run_mask, sm->sigset, sm->len < sizeof(sigset_t) ?
               sm->len : sizeof(sigset_t));
        v->has_run_mask = true;
        return 0;
    }
    case KVM_GET_MP_STATE:
        ((struct kvm_mp_state *)arg)->mp_state = KVM_MP_STATE_RUNNABLE;
        return 0;
    case KVM_GET_TSC_KHZ:
        return 1000000;
    case KVM_GET_CPUID2:
        ((struct kvm_cpuid2 *)arg)->nent = 0;
        return 0;
    default:
        r = model_state_ioctl(v, req, arg);
        if (req == KVM_SET_REGS) {
            model_note_reset(v);    /* QEMU loads the sregs first */
        }
        if (getenv("KVM_MODEL_TRACE") && (req == KVM_SET_SREGS ||
                                          req == KVM_SET_REGS)) {
            model_log("vcpu %lu set rip=0x%llx cs.base=0x%llx", v->id,
                      (unsigned long long)v->regs.rip,
                      (unsigned long long)v->sregs.cs.base);
        }
        /* stock vCPU set-up: CPUID, MCE, TSC, MP state, debug, NMI */
        return r == -2 ? 0 : r;
    }
}

/* ---- the interposed calls --------------------------------------------- */

static int model_open_kvm(const char *path)
{
    int fd;

    if (m.kernel == KERNEL_STOCK && getenv("KVM_MODEL_NO_KVM")) {
        errno = ENOENT;
        return -1;
    }
    pthread_mutex_lock(&m.lock);
    fd = model_new_fd(FD_SYSTEM);
    pthread_mutex_unlock(&m.lock);
    model_log("open %s fd=%d kernel=%s", path, fd,
              m.kernel == KERNEL_SEED ? "seed" :
              m.kernel == KERNEL_RFC ? "rfc" : "stock");
    return fd;
}

typedef int (*OpenFn)(const char *, int, ...);

/* open() and open64(): /dev/kvm is the model's, the rest the libc's. */
static int model_open(OpenFn real, const char *path, int flags, va_list ap)
{
    bool has_mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
    mode_t mode = has_mode ? va_arg(ap, mode_t) : 0;

    if (!strcmp(path, "/dev/kvm")) {
        return model_open_kvm(path);
    }
    return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    int fd;

    va_start(ap, flags);
    fd = model_open(real_open, path, flags, ap);
    va_end(ap);
    return fd;
}

int open64(const char *path, int flags, ...)
{
    va_list ap;
    int fd;

    va_start(ap, flags);
    fd = model_open(real_open64, path, flags, ap);
    va_end(ap);
    return fd;
}

int close(int fd)
{
    Fd *f = model_fd(fd);

    if (f && f->kind != FD_VCPU) {
        f->kind = FD_NONE;
    }
    return real_close(fd);
}

int ioctl(int fd, unsigned long req, ...)
{
    va_list ap;
    void *arg;
    Fd *f;
    int r;

    va_start(ap, req);
    arg = va_arg(ap, void *);
    va_end(ap);
    f = model_fd(fd);
    if (!f) {
        return real_ioctl(fd, req, arg);
    }
    if (getenv("KVM_MODEL_TRACE")) {
        model_log("ioctl fd=%d kind=%d 0x%lx", fd, f->kind, req);
    }
    if (f->kind == FD_VCPU) {
        /* no lock: KVM_RUN blocks, and each vCPU is its thread's own */
        return model_vcpu_ioctl(f->vcpu, req, arg);
    }
    pthread_mutex_lock(&m.lock);
    switch (f->kind) {
    case FD_SYSTEM:
        r = model_system_ioctl(req, arg);
        break;
    case FD_VM:
        r = model_vm_ioctl(req, arg);
        break;
    default:
        r = model_plane_ioctl(f, req, arg);
        break;
    }
    pthread_mutex_unlock(&m.lock);
    return r;
}

static __attribute__((destructor)) void model_fini(void)
{
    if (m.ready) {
        model_log("END pid=%d violations=%u", (int)getpid(), m.violations);
    }
}
