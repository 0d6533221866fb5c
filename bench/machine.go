package bench

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// Machine describes the computer a bench ran on. Figures are only
// comparable on the same machine, so this line goes with every report.
type Machine struct {
	CPU     string  `json:"cpu"`
	VM      bool    `json:"vm"` // the CPU reports a hypervisor
	Cores   int     `json:"cores"`
	MemGB   float64 `json:"mem_gb"`
	OS      string  `json:"os"`
	Go      string  `json:"go"`
	Date    string  `json:"date"`     // when the description was taken, RFC 3339
	Load1   float64 `json:"load1"`    // one-minute load average then
	LoadEnd float64 `json:"load_end"` // one-minute load average at the end of the run, if recorded
}

// DescribeMachine reads the machine's description from /proc and
// /etc/os-release (Linux); fields it cannot read stay empty.
func DescribeMachine() Machine {
	m := Machine{CPU: cpuModel(), Cores: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS,
		Date: time.Now().Format(time.RFC3339), Load1: LoadAverage()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.VM = strings.Contains(string(b), " hypervisor")
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb float64
		for _, line := range strings.Split(string(b), "\n") {
			if _, err := fmt.Sscanf(line, "MemTotal: %f kB", &kb); err == nil {
				m.MemGB = kb / (1 << 20)
				break
			}
		}
	}
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
				m.OS = strings.Trim(v, `"`)
			}
		}
	}
	return m
}

// String is the one-line description printed above a report.
func (m Machine) String() string {
	vm := ""
	if m.VM {
		vm = " (VM)"
	}
	s := fmt.Sprintf("%s%s, %d CPUs, %.0f GB, %s, %s; %s; load average %.1f at start", m.CPU, vm, m.Cores, m.MemGB,
		m.OS, m.Go, m.Date, m.Load1)
	if m.LoadEnd > 0 {
		s += fmt.Sprintf(", %.1f at end", m.LoadEnd)
	}
	return s
}

// LoadAverage is the one-minute load average (0 where unknown). On a
// machine shared with other work it says how much the figures were
// disturbed: above the CPU count, every process waits for a core.
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	fmt.Sscan(string(b), &l)
	return l
}
