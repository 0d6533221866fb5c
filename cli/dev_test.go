package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestDeveloperSuitesAreNotTheProducts: `cairn bench quality` (and the
// other devSuites) points at the developer command, whose bench has them
// with their flags; the product's bench lists neither.
func TestDeveloperSuitesAreNotTheProducts(t *testing.T) {
	home := t.TempDir()
	for _, s := range devSuites {
		_, errs, code := cli(t, home, "bench", s)
		if code != 2 || !strings.Contains(errs, s+" is a developer's suite") || !strings.Contains(errs, "go run ./bench/cmd/cairn-dev bench "+s) {
			t.Errorf("cairn bench %s: exit %d, %q", s, code, errs)
		}
	}
	out, _, _ := cli(t, home, "bench", "-h")
	if strings.Contains(out, "-set") || strings.Contains(out, "-store") {
		t.Errorf("the product's bench help names the quality suite's flags:\n%s", out)
	}
	t.Setenv("CAIRN_HOME", home)
	var dev, errb bytes.Buffer
	if code := RunDev([]string{"bench", "-h"}, &dev, &errb); code != 0 || !strings.Contains(dev.String(), "-set") || !strings.Contains(dev.String(), "-store") {
		t.Errorf("cairn-dev bench -h: exit %d\n%s%s", code, dev.String(), errb.String())
	}
	// An unknown suite is still unknown in both.
	if code := RunDev([]string{"bench", "nonesuch"}, &dev, &errb); code != 2 || !strings.Contains(errb.String(), `unknown bench suite "nonesuch"`) {
		t.Errorf("cairn-dev bench nonesuch: exit %d, %q", code, errb.String())
	}
}
