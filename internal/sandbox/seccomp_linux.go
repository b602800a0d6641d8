//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp filter covers only what Landlock (ABI 7 here) has no word
// for, each entry with the escape it closes:
//
//   - socket() of a family other than Unix, IPv4, IPv6 and netlink (raw
//     packet sockets, AF_VSOCK to a hypervisor, Bluetooth…): Landlock does
//     not restrict them;
//   - without a network namespace, IPv4/IPv6 sockets other than plain TCP:
//     UDP (DNS tunnelling, QUIC), raw ICMP, and MPTCP and SCTP, which
//     Landlock's TCP port rules do not cover;
//   - io_uring: it can open sockets without socket(), past the filter;
//   - keyctl, add_key, request_key: the session keyring may hold
//     credentials (Kerberos tickets, ecryptfs keys).
//
// Calls from another architecture's system-call table (32-bit int 0x80 on
// amd64, x32) are refused outright, so the numbers below cannot be dodged.

// seccomp return values.
const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retErrno  = unix.SECCOMP_RET_ERRNO
	retEACCES = retErrno | uint32(unix.EACCES)
	retENOSYS = retErrno | uint32(unix.ENOSYS)
)

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // args[i] at 16+8i; the low 32 bits first on little-endian
)

// auditArch is this architecture's AUDIT_ARCH_* value and x32 marks
// whether the x32 ABI bit must be refused.
func auditArch() (arch uint32, x32 bool, err error) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, true, nil
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, false, nil
	}
	return 0, false, fmt.Errorf("seccomp: no filter for %s", runtime.GOARCH)
}

// filterProgram assembles the filter; ownNetNS says programs have a
// network namespace of their own, where UDP and other IP sockets reach
// only their own loopback.
func filterProgram(ownNetNS bool) ([]bpf.RawInstruction, error) {
	arch, x32, err := auditArch()
	if err != nil {
		return nil, err
	}
	// Jumps name labels; prog.assemble turns them into BPF's relative skips.
	var p prog
	p.add(bpf.LoadAbsolute{Off: offArch, Size: 4})
	p.jeq(arch, "", "nosys")
	p.add(bpf.LoadAbsolute{Off: offNr, Size: 4})
	if x32 {
		p.jge(0x40000000, "nosys", "")
	}
	for _, nr := range []uint32{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER} {
		p.jeq(nr, "nosys", "")
	}
	for _, nr := range []uint32{unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY} {
		p.jeq(nr, "eacces", "")
	}
	p.jeq(unix.SYS_SOCKET, "socket", "allow")

	p.label("socket")
	p.add(bpf.LoadAbsolute{Off: offArg0, Size: 4}) // domain
	p.jeq(unix.AF_UNIX, "allow", "")
	p.jeq(unix.AF_NETLINK, "allow", "")
	p.jeq(unix.AF_INET, "inet", "")
	p.jeq(unix.AF_INET6, "inet", "eacces")

	p.label("inet")
	if ownNetNS {
		p.ret(retAllow)
	} else {
		p.add(bpf.LoadAbsolute{Off: offArg0 + 8, Size: 4}) // type
		p.add(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf})
		p.jeq(unix.SOCK_STREAM, "", "eacces")
		p.add(bpf.LoadAbsolute{Off: offArg0 + 16, Size: 4}) // protocol
		p.jeq(0, "allow", "")
		p.jeq(unix.IPPROTO_TCP, "allow", "eacces")
	}

	p.label("allow")
	p.ret(retAllow)
	p.label("eacces")
	p.ret(retEACCES)
	p.label("nosys")
	p.ret(retENOSYS)
	return p.assemble()
}

// loadFilter installs the filter on the calling thread only (no TSYNC):
// the thread that starts confined programs, which inherit it.
func loadFilter(ownNetNS bool) error {
	raw, err := filterProgram(ownNetNS)
	if err != nil {
		return err
	}
	fs := make([]unix.SockFilter, len(raw))
	for i, in := range raw {
		fs[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(fs)), Filter: &fs[0]}
	if _, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return fmt.Errorf("seccomp: load filter: %w", e)
	}
	runtime.KeepAlive(fs)
	return nil
}

// prog is a BPF program with labels: jumps name the label to go to when
// the test is true or false ("" falls through).
type prog struct {
	ins    []bpf.Instruction
	jumps  map[int][2]string // instruction index → true, false labels
	labels map[string]int
}

func (p *prog) add(in bpf.Instruction) { p.ins = append(p.ins, in) }

func (p *prog) ret(v uint32) { p.add(bpf.RetConstant{Val: v}) }

func (p *prog) label(name string) {
	if p.labels == nil {
		p.labels = map[string]int{}
	}
	p.labels[name] = len(p.ins)
}

func (p *prog) jump(cond bpf.JumpTest, v uint32, t, f string) {
	if p.jumps == nil {
		p.jumps = map[int][2]string{}
	}
	p.jumps[len(p.ins)] = [2]string{t, f}
	p.add(bpf.JumpIf{Cond: cond, Val: v})
}

func (p *prog) jeq(v uint32, t, f string) { p.jump(bpf.JumpEqual, v, t, f) }
func (p *prog) jge(v uint32, t, f string) { p.jump(bpf.JumpGreaterOrEqual, v, t, f) }

// assemble resolves the labels into relative skips.
func (p *prog) assemble() ([]bpf.RawInstruction, error) {
	for i, lf := range p.jumps {
		j := p.ins[i].(bpf.JumpIf)
		skip := func(name string) (uint8, error) {
			if name == "" {
				return 0, nil
			}
			at, ok := p.labels[name]
			if !ok {
				return 0, fmt.Errorf("seccomp: no label %q", name)
			}
			d := at - i - 1
			if d < 0 || d > 255 {
				return 0, fmt.Errorf("seccomp: jump to %q out of range", name)
			}
			return uint8(d), nil
		}
		var err error
		if j.SkipTrue, err = skip(lf[0]); err != nil {
			return nil, err
		}
		if j.SkipFalse, err = skip(lf[1]); err != nil {
			return nil, err
		}
		p.ins[i] = j
	}
	return bpf.Assemble(p.ins)
}
