package extract

import (
	"os/exec"
	"syscall"
)

// dieWithCairn makes the kernel kill cmd's process when Cairn's dies, even
// by SIGKILL, which CommandContext cannot see: a pdftotext stalled on a PDF
// would otherwise keep a core busy after the run that started it is gone.
func dieWithCairn(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
