// Package systemd holds the systemd units of a team cluster (docs/team.md)
// and the script that installs them; its tests check both without
// touching this computer's system.
package systemd

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"cairn/internal/skip"
)

// TestUnitsPassSystemdsCheck: systemd-analyze verify finds nothing to say
// about the units (an unknown setting, a bad value), with the programs
// they start stood in for by /bin/true.
func TestUnitsPassSystemdsCheck(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		skip.Because(t, "needs systemd-analyze (Debian package systemd; make test installs it)")
	}
	dir := t.TempDir()
	var units []string
	for _, u := range []string{"cairn-weaviate.service", "cairn-index.service", "cairn-index.timer"} {
		b, err := os.ReadFile(u)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.NewReplacer("/usr/local/bin/weaviate-server", "/bin/true", "/usr/local/bin/cairn", "/bin/true").Replace(string(b))
		if err := os.WriteFile(filepath.Join(dir, u), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		units = append(units, filepath.Join(dir, u))
	}
	out, err := exec.Command("systemd-analyze", append([]string{"verify"}, units...)...).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// install runs install.sh args under root, with stand-ins for systemctl
// and useradd that log their arguments to root/log.
func install(t *testing.T, root string, env []string, args ...string) (string, error) {
	t.Helper()
	bin := filepath.Join(root, "build")
	os.MkdirAll(bin, 0o755)
	for _, p := range []string{"weaviate-server", "cairn"} {
		os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\n"), 0o755)
	}
	logger := filepath.Join(root, "logger")
	os.WriteFile(logger, []byte("#!/bin/sh\necho \"$0 $*\" >>"+filepath.Join(root, "log")+"\n"), 0o755)
	os.Symlink(logger, filepath.Join(root, "systemctl"))
	os.Symlink(logger, filepath.Join(root, "useradd"))
	cmd := exec.Command("sh", append([]string{"install.sh"}, args...)...)
	cmd.Env = append(append(os.Environ(), "ROOT="+root, "BIN="+bin, "SYSTEMCTL="+filepath.Join(root, "systemctl"),
		"USERADD="+filepath.Join(root, "useradd"), "CAIRN_WEAVIATE_KEY="), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func readMode(t *testing.T, path string, mode os.FileMode) string {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != mode {
		t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), mode)
	}
	b, _ := os.ReadFile(path)
	return string(b)
}

// TestInstallANode: `install.sh node` installs the server and its unit,
// writes the node's settings once, private, with a new random key that it
// prints (and this computer's name), and starts the service; run again,
// it keeps the settings and their key.
func TestInstallANode(t *testing.T) {
	root := t.TempDir()
	out, err := install(t, root, nil, "node")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	env := readMode(t, filepath.Join(root, "etc/cairn/weaviate.env"), 0o600)
	key := regexp.MustCompile(`(?m)^AUTHENTICATION_APIKEY_ALLOWED_KEYS=([0-9a-f]{64})$`).FindStringSubmatch(env)
	if key == nil || !strings.Contains(out, "The cluster's API key (CAIRN_WEAVIATE_KEY on the desktops): "+key[1]+"\n") {
		t.Fatalf("key not written or not printed:\n%s\n%s", env, out)
	}
	host, _ := exec.Command("hostname", "-s").Output()
	if !strings.Contains(env, "\nCLUSTER_HOSTNAME="+strings.TrimSpace(string(host))+"\n") || !regexp.MustCompile(`(?m)^CLUSTER_ADVERTISE_ADDR=\d+\.\d+\.\d+\.\d+$`).MatchString(env) {
		t.Errorf("name or address not filled in:\n%s", env)
	}
	readMode(t, filepath.Join(root, "usr/local/bin/weaviate-server"), 0o755)
	if unit := readMode(t, filepath.Join(root, "etc/systemd/system/cairn-weaviate.service"), 0o644); !strings.Contains(unit, "EnvironmentFile=/etc/cairn/weaviate.env") ||
		!strings.Contains(unit, "\nEnvironment=USE_INVERTED_SEARCHABLE=false\n") {
		t.Errorf("unit:\n%s", unit)
	}
	log, _ := os.ReadFile(filepath.Join(root, "log"))
	if !strings.Contains(string(log), "useradd --system --home-dir /var/lib/weaviate --shell /usr/sbin/nologin weaviate\n") ||
		!strings.HasSuffix(string(log), "systemctl daemon-reload\n"+root+"/systemctl enable --now cairn-weaviate.service\n") {
		t.Errorf("commands run:\n%s", log)
	}
	out, err = install(t, root, nil, "node")
	if again, _ := os.ReadFile(filepath.Join(root, "etc/cairn/weaviate.env")); err != nil || string(again) != env || !strings.Contains(out, "kept /etc/cairn/weaviate.env") || strings.Contains(out, "API key") {
		t.Errorf("second run: %v\n%s\n%s", err, out, again)
	}
}

// TestInstallAnIndexer: `install.sh indexer` needs the key, writes the
// folder, its name, the cluster and the key into the indexer's settings,
// private, installs cairn and the units, and starts the timer.
func TestInstallAnIndexer(t *testing.T) {
	root := t.TempDir()
	if out, err := install(t, root, nil, "indexer", "/srv/share", "share", "http://192.0.2.10:8080"); err == nil || !strings.Contains(out, "give the cluster's key in CAIRN_WEAVIATE_KEY") {
		t.Errorf("without a key: %v\n%s", err, out)
	}
	out, err := install(t, root, []string{"CAIRN_WEAVIATE_KEY=s3cret"}, "indexer", "/srv/share", "share", "http://192.0.2.10:8080")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	env := readMode(t, filepath.Join(root, "etc/cairn/index.env"), 0o600)
	for _, want := range []string{"\nCAIRN_INDEX_FOLDER=/srv/share\n", "\nCAIRN_INDEX_AS=share\n", "\nCAIRN_STORE_URL=http://192.0.2.10:8080\n", "\nCAIRN_WEAVIATE_KEY=s3cret\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("settings lack %q:\n%s", want, env)
		}
	}
	readMode(t, filepath.Join(root, "usr/local/bin/cairn"), 0o755)
	readMode(t, filepath.Join(root, "etc/systemd/system/cairn-index.timer"), 0o644)
	log, _ := os.ReadFile(filepath.Join(root, "log"))
	if !strings.HasSuffix(string(log), root+"/systemctl enable --now cairn-index.timer\n") {
		t.Errorf("commands run:\n%s", log)
	}
}
