//go:build linux && (amd64 || arm64)

package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData is struct seccomp_data as a little-endian kernel hands it
// to the filter. The kernel's loads are native-endian, x/net/bpf's VM's
// big-endian: each 32-bit word is written big-endian where the kernel
// would find it (the low half of an argument first).
func seccompData(arch, nr uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[20+8*i:], uint32(a>>32))
	}
	return b
}

// TestSeccompFilter runs the filter in x/net/bpf's VM over the calls it
// must refuse and the ones it must let through, in both network modes.
func TestSeccompFilter(t *testing.T) {
	arch, x32, err := auditArch()
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		name string
		arch uint32
		nr   uint32
		args []uint64
	}
	sock := func(name string, dom, typ, proto uint64) call {
		return call{name, arch, unix.SYS_SOCKET, []uint64{dom, typ, proto}}
	}
	allow, eacces, enosys := uint32(retAllow), uint32(retEACCES), uint32(retENOSYS)
	for _, tc := range []struct {
		c             call
		landlock, own uint32 // want in Landlock mode, in a namespace of its own
	}{
		{sock("tcp", unix.AF_INET, unix.SOCK_STREAM, 0), allow, allow},
		{sock("tcp cloexec nonblock", unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.IPPROTO_TCP), allow, allow},
		{sock("udp", unix.AF_INET, unix.SOCK_DGRAM, 0), eacces, allow},
		{sock("udp6 cloexec", unix.AF_INET6, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.IPPROTO_UDP), eacces, allow},
		{sock("raw icmp", unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP), eacces, allow},
		{sock("mptcp", unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP), eacces, allow},
		{sock("sctp", unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP), eacces, allow},
		{sock("seqpacket", unix.AF_INET, unix.SOCK_SEQPACKET, 0), eacces, allow},
		{sock("unix", unix.AF_UNIX, unix.SOCK_STREAM, 0), allow, allow},
		{sock("netlink", unix.AF_NETLINK, unix.SOCK_RAW, 0), allow, allow},
		{sock("packet", unix.AF_PACKET, unix.SOCK_RAW, 0), eacces, eacces},
		{sock("vsock", unix.AF_VSOCK, unix.SOCK_STREAM, 0), eacces, eacces},
		{sock("high bits do not hide the family", 1<<32|unix.AF_PACKET, unix.SOCK_RAW, 0), eacces, eacces},
		{call{"io_uring_setup", arch, unix.SYS_IO_URING_SETUP, nil}, enosys, enosys},
		{call{"io_uring_enter", arch, unix.SYS_IO_URING_ENTER, nil}, enosys, enosys},
		{call{"keyctl", arch, unix.SYS_KEYCTL, nil}, eacces, eacces},
		{call{"add_key", arch, unix.SYS_ADD_KEY, nil}, eacces, eacces},
		{call{"openat", arch, unix.SYS_OPENAT, nil}, allow, allow},
		{call{"another architecture's table", arch ^ 1, unix.SYS_OPENAT, nil}, enosys, enosys},
	} {
		for _, own := range []bool{false, true} {
			raw, err := filterProgram(own)
			if err != nil {
				t.Fatal(err)
			}
			ins := make([]bpf.Instruction, len(raw))
			for i, r := range raw {
				ins[i] = r.Disassemble()
			}
			vm, err := bpf.NewVM(ins)
			if err != nil {
				t.Fatal(err)
			}
			got, err := vm.Run(seccompData(tc.c.arch, tc.c.nr, tc.c.args...))
			if err != nil {
				t.Fatal(err)
			}
			want := tc.landlock
			if own {
				want = tc.own
			}
			if uint32(got) != want {
				t.Errorf("%s (own namespace %v) = %#x, want %#x", tc.c.name, own, got, want)
			}
		}
	}
	if x32 {
		raw, _ := filterProgram(false)
		ins := make([]bpf.Instruction, len(raw))
		for i, r := range raw {
			ins[i] = r.Disassemble()
		}
		vm, _ := bpf.NewVM(ins)
		if got, _ := vm.Run(seccompData(arch, 0x40000000|unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_DGRAM, 0)); uint32(got) != enosys {
			t.Errorf("x32 socket = %#x, want ENOSYS", got)
		}
	}
}
