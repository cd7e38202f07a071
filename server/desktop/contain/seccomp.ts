// The system call filter every program of a contained desktop runs under (bubblewrap loads it with
// `--seccomp FD` just before it starts the program): a classic BPF program, written out here rather than
// built with libseccomp, that refuses with EPERM the calls a desktop never needs and that widen what of the
// kernel an agent can reach: loading kernels and modules, eBPF, perf events, userfaultfd, the keyring,
// every way to mount, swap, reboot, accounting, quotas, file handles, io_uring, port I/O, the kernel log, and
// personalities other than the usual ones. Everything else is allowed: user namespaces (unshare, clone,
// setns) stay, since Chromium's own sandbox is made of them, and so do seccomp and chroot, which it uses too.
// Only x86_64 and aarch64 are known: another architecture, and the x32 and 32-bit calls of an x86_64 kernel,
// get EPERM for every call. A machine of another architecture cannot build the filter, so no desktop starts.

/** seccomp_data: the call's number at 0, its architecture at 4, its first argument (low word) at 16. */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_SYSCALL_BIT = 0x40000000;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1; // SECCOMP_RET_ERRNO | EPERM

// Classic BPF opcodes (linux/bpf_common.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;

/** Calls numbered alike on both (the newer ones): io_uring, the mount API, quotactl_fd, open_tree_attr. */
const COMMON = [425, 426, 427, 428, 429, 430, 431, 432, 433, 442, 443, 467];

/** What a desktop may not call, by architecture (asm/unistd_64.h; asm-generic/unistd.h for aarch64). */
const DENIED: Record<'x64' | 'arm64', Record<string, number>> = {
  x64: {
    kexec_load: 246, kexec_file_load: 320, init_module: 175, finit_module: 313, delete_module: 176, bpf: 321,
    perf_event_open: 298, userfaultfd: 323, add_key: 248, request_key: 249, keyctl: 250, mount: 165, umount2: 166,
    pivot_root: 155, swapon: 167, swapoff: 168, reboot: 169, acct: 163, quotactl: 179, lookup_dcookie: 212,
    name_to_handle_at: 303, open_by_handle_at: 304, iopl: 172, ioperm: 173, syslog: 103, uselib: 134, vhangup: 153,
  },
  arm64: {
    kexec_load: 104, kexec_file_load: 294, init_module: 105, finit_module: 273, delete_module: 106, bpf: 280,
    perf_event_open: 241, userfaultfd: 282, add_key: 217, request_key: 218, keyctl: 219, mount: 40, umount2: 39,
    pivot_root: 41, swapon: 224, swapoff: 225, reboot: 142, acct: 89, quotactl: 60, lookup_dcookie: 18,
    name_to_handle_at: 264, open_by_handle_at: 265, syslog: 116, vhangup: 58,
  },
};
const PERSONALITY = { x64: 135, arm64: 92 };
/** personality() values allowed (Docker's list): PER_LINUX, PER_LINUX32, UNAME26 with either, and the query. */
const PERSONAS = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];

type Op = { code: number; k: number; jt?: string; jf?: string; label?: string };

/** The filter for this machine, as bubblewrap reads it (struct sock_filter[], native byte order). */
export function seccompFilter(arch: string = process.arch): Buffer {
  if (arch !== 'x64' && arch !== 'arm64') throw new Error(`no system call filter is known for the ${arch} architecture`);
  const auditArch = arch === 'x64' ? AUDIT_ARCH_X86_64 : AUDIT_ARCH_AARCH64;
  const denied = [...Object.values(DENIED[arch]), ...COMMON];
  const ops: Op[] = [
    { code: LD_W_ABS, k: ARCH },
    { code: JEQ_K, k: auditArch, jf: 'deny' },
    { code: LD_W_ABS, k: NR },
    ...(arch === 'x64' ? [{ code: JGE_K, k: X32_SYSCALL_BIT, jt: 'deny' }] : []),
    { code: JEQ_K, k: PERSONALITY[arch], jt: 'personality' },
    ...denied.map((nr) => ({ code: JEQ_K, k: nr, jt: 'deny' })),
    { code: RET_K, k: RET_ALLOW },
    { code: LD_W_ABS, k: ARG0_LOW, label: 'personality' },
    ...PERSONAS.map((p) => ({ code: JEQ_K, k: p, jt: 'allow' })),
    { code: RET_K, k: RET_EPERM, label: 'deny' },
    { code: RET_K, k: RET_ALLOW, label: 'allow' },
  ];
  return assemble(ops);
}

/** Resolves the labels to the forward jumps BPF has (each at most 255 instructions ahead). */
function assemble(ops: Op[]): Buffer {
  const at = new Map(ops.flatMap((op, i) => (op.label ? [[op.label, i] as const] : [])));
  const offset = (from: number, label?: string) => {
    if (!label) return 0;
    const to = at.get(label);
    if (to === undefined || to <= from || to - from - 1 > 255) throw new Error(`seccomp filter: bad jump to ${label}`);
    return to - from - 1;
  };
  const out = Buffer.alloc(ops.length * 8);
  ops.forEach((op, i) => {
    out.writeUInt16LE(op.code, i * 8);
    out.writeUInt8(offset(i, op.jt), i * 8 + 2);
    out.writeUInt8(offset(i, op.jf), i * 8 + 3);
    out.writeUInt32LE(op.k >>> 0, i * 8 + 4);
  });
  return out;
}
