package serve

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// maxSocketPath is the longest path a Unix socket can have on Linux
// (sun_path is 108 bytes with its terminating NUL).
const maxSocketPath = 107

// ListenUnix listens on a Unix socket at path that only this user can
// connect to (mode 0600) from its first moment. A socket left by a
// service that ended without removing it is replaced; a socket another
// service answers on, or any other kind of file, is refused and left as
// it is. Closing the listener removes the socket.
//
// bind(2) creates the socket with the umask's mode, so it is bound in a
// fresh private folder next to path, made 0600 there, and then hard-linked
// to path: link(2) never replaces a file, so nothing that appeared at path
// meanwhile is lost, and nobody else could reach the socket before.
func ListenUnix(path string) (net.Listener, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("cannot listen on %s: a Unix socket's path can have at most %d bytes, this one has %d (choose a shorter path)", path, maxSocketPath, len(path))
	}
	if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".cairn")
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w", path, err)
	}
	defer os.RemoveAll(tmp)
	bound := filepath.Join(tmp, "s")
	if len(bound) > maxSocketPath {
		return nil, fmt.Errorf("cannot listen on %s: the socket is first made in a private folder beside it, whose path would be too long for a socket (choose a shorter path)", path)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: bound, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(false) // the bound name goes with tmp; Close removes path
	fail := func(err error) (net.Listener, error) {
		ln.Close()
		return nil, fmt.Errorf("cannot listen on %s: %w", path, err)
	}
	if err := os.Chmod(bound, 0o600); err != nil {
		return fail(err)
	}
	if err := os.Link(bound, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fail(errors.New("a file appeared at that path meanwhile; it was left as it is"))
		}
		return fail(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		os.Remove(path)
		return fail(err)
	}
	return &unixListener{UnixListener: ln, addr: &net.UnixAddr{Name: path, Net: "unix"}, file: fi}, nil
}

// removeStaleSocket removes a socket at path that nobody answers on, and
// refuses anything else that is there.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", path, err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("cannot listen on %s: a %s is there, not a socket; Cairn replaces only a socket left behind (choose another path, or move the file away)", path, fileKind(fi.Mode()))
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("cannot listen on %s: another program answers on this socket (is another `cairn serve` running?)", path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("cannot listen on %s: cannot tell whether the socket there is in use: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot listen on %s: removing the socket left behind: %w", path, err)
	}
	return nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	case m.IsRegular():
		return "file"
	}
	return "special file"
}

// unixListener is a socket at a path of the user's choosing, removed on
// Close if it is still the one this listener made.
type unixListener struct {
	*net.UnixListener
	addr  *net.UnixAddr
	file  os.FileInfo
	close sync.Once
	err   error
}

func (l *unixListener) Addr() net.Addr { return l.addr }

func (l *unixListener) Close() error {
	l.close.Do(func() {
		l.err = l.UnixListener.Close()
		if fi, err := os.Lstat(l.addr.Name); err == nil && os.SameFile(fi, l.file) {
			os.Remove(l.addr.Name)
		}
	})
	return l.err
}
