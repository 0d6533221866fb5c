package ocr

import "strings"

// Page segmentation modes of Tesseract (tesseract/publictypes.h).
const (
	psmAuto  = 3 // automatic layout: columns, blocks, reading order (the CLI's default)
	psmBlock = 6 // one uniform block of text (the API's default)
)

// lowConfidence is the mean word confidence (0-100) under which a page read
// with automatic layout is read again as one block and the better reading
// kept. Clean print reads at 85-95; the noisy scans of `cairn bench
// extract` at 60-80; a page whose layout analysis failed lands below 50.
const lowConfidence = 60

// reading is what one pass of Tesseract gave: the text and its mean word
// confidence.
type reading struct {
	text string
	conf int
	mode int
}

// passes reads the image set on a Tesseract instance through recognize,
// one call per pass.
type passes func(recognize func(psm int) (string, int, error)) (reading, error)

// bestReading reads a page with automatic layout and, when that reading is
// unsure, again as one block, keeping the more confident of the two.
// Automatic layout keeps columns, tables of contents and sparse text in
// reading order, where one block interleaves them; one block does better on
// a dense page whose layout analysis fails. recognize runs one pass in the
// given page segmentation mode over the image already set.
func bestReading(recognize func(psm int) (string, int, error)) (reading, error) {
	text, conf, err := recognize(psmAuto)
	if err != nil {
		return reading{}, err
	}
	best := reading{text, conf, psmAuto}
	floor := best.conf
	if strings.TrimSpace(text) == "" {
		// Tesseract rates a reading without words at 95, and automatic
		// layout finds none on a page whose grain hides its text blocks
		// (a 150-dpi page under grey noise of σ 50-70), where one block
		// still reads much of it at 28-65. Below noWordsFloor, one block
		// of such a page is grain read as letters.
		floor = noWordsFloor - 1
	} else if conf >= lowConfidence {
		return best, nil
	}
	// The second pass must use another mode: the same mode gives the same
	// text and doubles the time of every unsure page for nothing.
	if text, conf, err := recognize(psmBlock); err == nil && conf > floor && strings.TrimSpace(text) != "" {
		best = reading{text, conf, psmBlock}
	}
	return best, nil
}

// noWordsFloor is the confidence a single-block reading needs to replace an
// automatic reading that found no words; a page of grey noise without text
// reads at 14-17.
const noWordsFloor = 25
