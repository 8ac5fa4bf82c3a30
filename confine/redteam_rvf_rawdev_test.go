package confine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// Red team rvf: block devices were kept from a confined command by their
// entry in /dev alone (its direct entries: loop0, vda, dm-0). A device
// node in a subdirectory of /dev (/dev/mapper/<vg>-<lv> where no udev
// makes them symlinks, a volume group's /dev/<vg>/<lv>, /dev/bsg/*,
// /dev/raw/raw1, /dev/sg* passthrough a directory down in a container's
// /dev) was granted with its directory, and a command run as root read
// the disk under the protected files through it. Here the node is made in
// a directory of /dev over a loop device set up over the protected key.
func TestRedTeamRVF_RawDeviceInDevSubdirectory(t *testing.T) {
	h, work := rootServerHome(t, "the server is not root: the raw devices are root's alone")
	dev := loopOverKey(t, h)
	key := filepath.Join(h.dir, ".ssh", "id_rsa")
	var st unix.Stat_t
	if err := unix.Stat(dev, &st); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("/dev", "rvf-vg")
	if err != nil {
		t.Skipf("cannot make a directory in /dev: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sub := filepath.Join(dir, "deep")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	nodes := []string{filepath.Join(dir, "lv"), filepath.Join(sub, "lv")}
	for _, n := range nodes {
		if err := unix.Mknod(n, unix.S_IFBLK|0o600, int(st.Rdev)); err != nil {
			t.Skipf("mknod: %v", err)
		}
	}
	// A character device that is no disk, beside them: still granted
	// (read-only, as /dev's subdirectories are).
	null := filepath.Join(dir, "null")
	if err := unix.Mknod(null, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Fatal(err)
	}
	for _, name := range nodes {
		cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work}, "head", "-c", "64", name)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := cmd.CombinedOutput()
		if strings.Contains(string(out), marker) {
			t.Errorf("%s: the command read the protected key through a block device in a directory of /dev: %q", name, out)
		}
	}
	// A SCSI passthrough node (bsg, sg: a command reads the disk with
	// SG_IO) and /dev/mem by another name: without a device behind the
	// numbers, opening a granted node fails with ENXIO ("No such device"),
	// one that is not granted with EACCES from Landlock.
	pass := map[string]int{}
	if b, err := os.ReadFile("/proc/devices"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			var n int
			var d string
			if _, err := fmt.Sscan(line, &n, &d); err == nil && (d == "bsg" || d == "sg") {
				pass[d] = n
			}
		}
	}
	chars := map[string]uint64{filepath.Join(sub, "mem"): unix.Mkdev(1, 1)}
	for d, n := range pass {
		chars[filepath.Join(sub, d+"-passthrough")] = unix.Mkdev(uint32(n), 250)
	}
	for name, rdev := range chars {
		if err := unix.Mknod(name, unix.S_IFCHR|0o600, int(rdev)); err != nil {
			t.Fatal(err)
		}
		cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work}, "head", "-c", "1", name)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "Permission denied") {
			t.Errorf("%s: granted: %q", name, out)
		}
	}
	// What held (capabilities are dropped): the command cannot make a
	// device node, set up a loop device of its own, or read /proc/kcore.
	script := `mknod ./n b ` + strings.TrimSpace(majMin(st.Rdev)) + ` 2>/dev/null && head -c 64 ./n
losetup -f --show -r "$KEY" 2>/dev/null
head -c 64 /proc/kcore 2>/dev/null | wc -c
cat ` + null + ` && echo null`
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work, Env: []string{"KEY=" + key, "PATH=" + os.Getenv("PATH")}}, "sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := cmd.CombinedOutput()
	if strings.Contains(string(got), marker) || strings.Contains(string(got), "/dev/loop") {
		t.Errorf("the command made a device of its own: %q", got)
	}
	if !strings.HasSuffix(string(got), "0\nnull\n") {
		t.Errorf("want /proc/kcore unread and the character device beside the nodes granted: %q", got)
	}
}

func majMin(rdev uint64) string {
	return strings.Join([]string{itoa(unix.Major(rdev)), itoa(unix.Minor(rdev))}, " ")
}

func itoa(n uint32) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
