//go:build cgo && !noocr

package ocr

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// checkPNG walks a PNG's chunks, checks their CRCs and inflates the image
// data to count it, without decoding pixels. libpng prints its complaints
// about a damaged file straight to stderr ("libpng error: IDAT: CRC
// error"), out of reach of any handler; a file that passes here gives it
// nothing to complain about, and one that fails gets a reason of its own.
func checkPNG(b []byte) error {
	const sig = "\x89PNG\r\n\x1a\n"
	if !bytes.HasPrefix(b, []byte(sig)) {
		return errors.New("not a PNG")
	}
	var idat []io.Reader
	var width, height uint32
	var depth, color, interlace byte
	seenIHDR, seenIEND := false, false
	for p := len(sig); !seenIEND; {
		if len(b)-p < 12 {
			return errors.New("damaged PNG: the file ends before its IEND chunk (truncated?)")
		}
		n := binary.BigEndian.Uint32(b[p:])
		typ := string(b[p+4 : p+8])
		if uint64(n) > uint64(len(b)-p-12) {
			return fmt.Errorf("damaged PNG: chunk %q runs past the end of the file (truncated?)", typ)
		}
		data := b[p+8 : p+8+int(n)]
		if crc32.ChecksumIEEE(b[p+4:p+8+int(n)]) != binary.BigEndian.Uint32(b[p+8+int(n):]) {
			return fmt.Errorf("damaged PNG: chunk %q fails its CRC check", typ)
		}
		p += 12 + int(n)
		switch typ {
		case "IHDR":
			if len(data) != 13 {
				return errors.New("damaged PNG: bad IHDR chunk")
			}
			width, height = binary.BigEndian.Uint32(data), binary.BigEndian.Uint32(data[4:])
			depth, color, interlace = data[8], data[9], data[12]
			seenIHDR = true
		case "IDAT":
			idat = append(idat, bytes.NewReader(data))
		case "IEND":
			seenIEND = true
		}
		if !seenIHDR {
			return errors.New("damaged PNG: IHDR is not the first chunk")
		}
	}
	channels := map[byte]uint64{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color]
	if channels == 0 || len(idat) == 0 {
		return errors.New("damaged PNG: no image data or an unknown colour type")
	}
	want := pngDataSize(uint64(width), uint64(height), channels*uint64(depth), interlace == 1)
	zr, err := zlib.NewReader(io.MultiReader(idat...))
	if err != nil {
		return fmt.Errorf("damaged PNG: image data: %w", err)
	}
	got, err := io.Copy(io.Discard, io.LimitReader(zr, int64(want)+1))
	if err != nil {
		return fmt.Errorf("damaged PNG: image data: %w", err)
	}
	if uint64(got) < want {
		return fmt.Errorf("damaged PNG: %d of %d bytes of image data", got, want)
	}
	return nil
}

// pngDataSize is the size of a PNG's inflated image data: each row of each
// pass is a filter byte and its pixels.
func pngDataSize(w, h, bitsPerPixel uint64, interlaced bool) uint64 {
	rows := func(w, h uint64) uint64 {
		if w == 0 || h == 0 {
			return 0
		}
		return h * (1 + (w*bitsPerPixel+7)/8)
	}
	if !interlaced {
		return rows(w, h)
	}
	// Adam7: the seven passes start at these offsets with these steps.
	var sum uint64
	for _, p := range [7][4]uint64{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}} {
		pw := (w + p[2] - 1 - p[0]) / p[2]
		ph := (h + p[3] - 1 - p[1]) / p[3]
		if w <= p[0] {
			pw = 0
		}
		if h <= p[1] {
			ph = 0
		}
		sum += rows(pw, ph)
	}
	return sum
}
