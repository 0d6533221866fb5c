package extract

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular marks a path that is no longer a regular file: a named
// pipe, a device or a folder put in its place.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens the file at path for reading only if it is a regular
// file. A caller may have checked the type already (the index walk, a
// search result), but the path can be swapped since, for a named pipe,
// whose open waits for a writer forever, or a device: O_NONBLOCK makes the
// open itself return at once, and the type is checked again on the opened
// descriptor, which no rename can change. (On a regular file O_NONBLOCK
// changes nothing.)
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w (a %s since the folder was scanned)", ErrNotRegular, FileKind(fi.Mode()))
	}
	return f, nil
}

// FileKind names the kind of file m describes, for a skip reason.
func FileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "folder"
	}
	return m.Type().String()
}
