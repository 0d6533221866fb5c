package core

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// TestStoppedHereKnowsOnlyAGoneProcessOfThisComputer: a lease left by a
// process of this computer that has ended may be taken at once; one of a
// running process, of another computer, or named otherwise may not.
func TestStoppedHereKnowsOnlyAGoneProcessOfThisComputer(t *testing.T) {
	host, _ := os.Hostname()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	gone := cmd.Process.Pid
	for holder, want := range map[string]bool{
		fmt.Sprintf("cairn index on %s by ann (pid %d)", host, gone):         true,
		fmt.Sprintf("cairn migrate on %s by ann (pid %d)", host, gone):       true,
		fmt.Sprintf("cairn remove on %s by ann (pid %d)", host, gone):        true,
		fmt.Sprintf("cairn index on %s by ann (pid %d)", host, os.Getppid()): false,
		fmt.Sprintf("cairn index on %s by ann (pid %d)", host, os.Getpid()):  false,
		fmt.Sprintf("cairn index on other-%s by ann (pid %d)", host, gone):   false,
		fmt.Sprintf("an indexer on %s (pid %d)", host, gone):                 false,
		indexerName(): false,
	} {
		if got := stoppedHere(holder); got != want {
			t.Errorf("stoppedHere(%q) = %v, want %v", holder, got, want)
		}
	}
}
