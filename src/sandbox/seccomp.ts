// The seccomp filter every sandboxed process runs under (bwrap --seccomp). Capabilities are
// already dropped, so most privileged calls fail anyway; this filter closes what an unprivileged
// process could still do to its neighbours or to the kernel:
//   - ptrace, process_vm_readv/writev, pidfd_getfd, kcmp: no tracing or reading of other
//     processes, the sandbox's own init included (a traced init stalls its turn);
//   - ioctl TIOCSTI / TIOCLINUX: no typing into a terminal (it would run text on a PTY shell
//     that ShellWrite never checked);
//   - the mount API, keyrings, bpf, perf, userfaultfd, io_uring, kexec and module loading:
//     kernel attack surface no command needs.
// Blocked calls fail with EPERM. A call from another ABI (x32 on x86_64, or i386 via int 0x80)
// is refused with ENOSYS, so no second syscall table slips past the list.
//
// The program is classic BPF over struct seccomp_data { int nr; u32 arch; u64 ip; u64 args[6]; }.

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** Low 32 bits of args[1] (little-endian): the ioctl request. */
const OFFSET_ARG1_LOW = 16 + 8;

const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;

interface ArchTable {
  audit: number;
  /** Syscall numbers at or above this belong to another ABI (x32). */
  foreignFrom?: number;
  ioctl: number;
  blocked: Record<string, number>;
}

// Numbers from the kernel's uapi headers (asm/unistd_64.h, asm-generic/unistd.h).
const X86_64: ArchTable = {
  audit: 0xc000003e,
  foreignFrom: 0x40000000,
  ioctl: 16,
  blocked: {
    ptrace: 101, syslog: 103, vhangup: 153, pivot_root: 155, acct: 163, mount: 165, umount2: 166, swapon: 167,
    swapoff: 168, reboot: 169, init_module: 175, delete_module: 176, quotactl: 179, lookup_dcookie: 212,
    kexec_load: 246, add_key: 248, request_key: 249, keyctl: 250, perf_event_open: 298, process_vm_readv: 310,
    process_vm_writev: 311, kcmp: 312, finit_module: 313, kexec_file_load: 320, bpf: 321, userfaultfd: 323,
    io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, open_tree: 428, move_mount: 429, fsopen: 430,
    fsconfig: 431, fsmount: 432, fspick: 433, pidfd_getfd: 438, process_madvise: 440, mount_setattr: 442,
  },
};

const AARCH64: ArchTable = {
  audit: 0xc00000b7,
  ioctl: 29,
  blocked: {
    lookup_dcookie: 18, umount2: 39, mount: 40, pivot_root: 41, vhangup: 58, quotactl: 60, acct: 89, kexec_load: 104,
    init_module: 105, delete_module: 106, syslog: 116, ptrace: 117, reboot: 142, add_key: 217, request_key: 218,
    keyctl: 219, swapon: 224, swapoff: 225, perf_event_open: 241, process_vm_readv: 270, process_vm_writev: 271,
    kcmp: 272, finit_module: 273, bpf: 280, userfaultfd: 282, kexec_file_load: 294, io_uring_setup: 425,
    io_uring_enter: 426, io_uring_register: 427, open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431,
    fsmount: 432, fspick: 433, pidfd_getfd: 438, process_madvise: 440, mount_setattr: 442,
  },
};

const TABLES: Record<string, ArchTable> = { x64: X86_64, arm64: AARCH64 };

/** The names of the system calls the filter refuses (for documentation and tests). */
export function blockedSyscalls(arch: string = process.arch): string[] {
  const t = TABLES[arch];
  return t ? Object.keys(t.blocked).sort() : [];
}

type Insn = [code: number, jt: number, jf: number, k: number];

/**
 * The filter program for this machine's architecture, ready for bwrap's --seccomp, or null
 * when the architecture has no table (the sandbox then reports that it runs without one).
 */
export function seccompProgram(arch: string = process.arch): Buffer | null {
  const t = TABLES[arch];
  if (!t) return null;
  const numbers = [...new Set(Object.values(t.blocked))].sort((a, b) => a - b);
  // Layout (jump offsets count instructions after the jump):
  //   0 ld arch; 1 jeq native ? 2 : NOSYS; 2 ld nr; [3 jge foreign → NOSYS]
  //   then one jeq per blocked number → EPERM; jeq ioctl → check request; ret ALLOW
  //   ioctl check: ld arg1; jeq TIOCSTI → EPERM; jeq TIOCLINUX → EPERM; ret ALLOW
  //   EPERM: ret ERRNO|EPERM;  NOSYS: ret ERRNO|ENOSYS
  const body: Insn[] = [];
  const fixups: { at: number; target: 'eperm' | 'nosys' | 'ioctl'; field: 'jt' | 'jf' }[] = [];
  const emit = (insn: Insn) => body.push(insn) - 1;
  emit([BPF_LD_W_ABS, 0, 0, OFFSET_ARCH]);
  fixups.push({ at: emit([BPF_JEQ_K, 0, 0, t.audit]), target: 'nosys', field: 'jf' });
  emit([BPF_LD_W_ABS, 0, 0, OFFSET_NR]);
  if (t.foreignFrom !== undefined) fixups.push({ at: emit([BPF_JGE_K, 0, 0, t.foreignFrom]), target: 'nosys', field: 'jt' });
  for (const n of numbers) fixups.push({ at: emit([BPF_JEQ_K, 0, 0, n]), target: 'eperm', field: 'jt' });
  fixups.push({ at: emit([BPF_JEQ_K, 0, 0, t.ioctl]), target: 'ioctl', field: 'jt' });
  emit([BPF_RET_K, 0, 0, RET_ALLOW]);
  const ioctlAt = emit([BPF_LD_W_ABS, 0, 0, OFFSET_ARG1_LOW]);
  fixups.push({ at: emit([BPF_JEQ_K, 0, 0, TIOCSTI]), target: 'eperm', field: 'jt' });
  fixups.push({ at: emit([BPF_JEQ_K, 0, 0, TIOCLINUX]), target: 'eperm', field: 'jt' });
  emit([BPF_RET_K, 0, 0, RET_ALLOW]);
  const epermAt = emit([BPF_RET_K, 0, 0, RET_ERRNO | EPERM]);
  const nosysAt = emit([BPF_RET_K, 0, 0, RET_ERRNO | ENOSYS]);
  const targets = { eperm: epermAt, nosys: nosysAt, ioctl: ioctlAt };
  for (const f of fixups) {
    const offset = targets[f.target] - f.at - 1;
    if (offset < 0 || offset > 255) throw new Error('seccomp program too long for an 8-bit jump');
    body[f.at]![f.field === 'jt' ? 1 : 2] = offset;
  }
  const buf = Buffer.alloc(body.length * 8);
  body.forEach(([code, jt, jf, k], i) => {
    buf.writeUInt16LE(code, i * 8);
    buf.writeUInt8(jt, i * 8 + 2);
    buf.writeUInt8(jf, i * 8 + 3);
    buf.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return buf;
}
