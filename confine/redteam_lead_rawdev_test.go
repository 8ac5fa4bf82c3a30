package confine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/confine"
)

// A command run as root owns the raw devices, with no capability: Landlock
// checks the path opened, not what a device holds, so a block device over
// the disk or a file under a protected path handed the command its
// content. Here a loop device set up over the protected key (as an
// administrator's loop devices, dm devices and disks hold such files) is
// read by its name, by a symlink to it, and by /dev/block's name for it.
// Block devices and /dev/mem, /dev/kmem and /dev/port are no longer
// granted; /dev's other devices still are.
func TestRawDevicesNotGranted(t *testing.T) {
	h, work := rootServerHome(t, "the server is not root: the raw devices are root's alone")
	dev := loopOverKey(t, h)
	link := filepath.Join(work, "disk")
	if err := os.Symlink(dev, link); err != nil {
		t.Fatal(err)
	}
	names := []string{dev, link}
	if b, err := os.ReadFile("/sys/class/block/" + filepath.Base(dev) + "/dev"); err == nil {
		names = append(names, "/dev/block/"+strings.TrimSpace(string(b))) // where udev links it
	}
	for _, name := range names {
		if _, err := os.Stat(name); err != nil {
			if name == dev || name == link {
				t.Fatalf("losetup gave %q: %v", dev, err)
			}
			continue // no /dev/block here
		}
		cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work}, "head", "-c", "64", name)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := cmd.CombinedOutput()
		t.Logf("%s: %q", name, out)
		if strings.Contains(string(out), marker) {
			t.Errorf("%s: the command read the protected key through a raw device: %q", name, out)
		}
	}
	// Near miss: the ordinary devices are still there.
	cmd, err := confine.Command(context.Background(), h.p, &confine.CommandOptions{Dir: work}, "sh", "-c",
		"head -c 8 /dev/zero | wc -c; head -c 8 /dev/urandom | wc -c; echo x > /dev/null && echo null")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "8\n8\nnull\n" {
		t.Errorf("ordinary devices: %v %q", err, out)
	}
}

// loopOverKey sets up a read-only loop device over h's protected key
// (its content the marker, padded to whole sectors) for the test's
// duration, and returns its path; it skips without losetup or loop
// devices.
func loopOverKey(t *testing.T, h home) string {
	t.Helper()
	losetup, err := exec.LookPath("losetup")
	if err != nil {
		t.Skip("no losetup to set up a loop device with")
	}
	key := filepath.Join(h.dir, ".ssh", "id_rsa")
	if err := os.WriteFile(key, []byte(marker+strings.Repeat("\n", 4096-len(marker))), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(losetup, "-f", "--show", "-r", key).Output()
	if err != nil {
		t.Skipf("no loop device: %v", err)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command(losetup, "-d", dev).Run() })
	return dev
}
