package ocr

import (
	"errors"
	"slices"
	"testing"
)

// fakePasses answers each page segmentation mode with a fixed reading and
// records the modes asked for.
type fakePasses struct {
	byMode map[int]reading
	asked  []int
}

func (f *fakePasses) recognize(psm int) (string, int, error) {
	f.asked = append(f.asked, psm)
	r, ok := f.byMode[psm]
	if !ok {
		return "", 0, errors.New("no such mode")
	}
	return r.text, r.conf, nil
}

func TestBestReading(t *testing.T) {
	auto := reading{"Tho nrth cairn", 41, psmAuto}
	block := reading{"The north cairn", 78, psmBlock}
	for _, tc := range []struct {
		name      string
		byMode    map[int]reading
		wantAsked []int
		want      reading
	}{
		{"a sure page is read once", map[int]reading{psmAuto: {"The north cairn", 91, 0}, psmBlock: block},
			[]int{psmAuto}, reading{"The north cairn", 91, psmAuto}},
		{"an unsure page is read again as one block, which is kept when surer", map[int]reading{psmAuto: auto, psmBlock: block},
			[]int{psmAuto, psmBlock}, block},
		{"the automatic reading stays when one block is less sure", map[int]reading{psmAuto: auto, psmBlock: {"T n c", 30, 0}},
			[]int{psmAuto, psmBlock}, auto},
		{"a failed second pass keeps the first", map[int]reading{psmAuto: auto},
			[]int{psmAuto, psmBlock}, auto},
		{"a page where automatic layout finds no words is read as one block", map[int]reading{psmAuto: {" \n", 95, 0}, psmBlock: {"The north cairn", 43, 0}},
			[]int{psmAuto, psmBlock}, reading{"The north cairn", 43, psmBlock}},
		{"but one block's reading of grain is not kept", map[int]reading{psmAuto: {"", 95, 0}, psmBlock: {"ee Se oe", 17, 0}},
			[]int{psmAuto, psmBlock}, reading{"", 95, psmAuto}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakePasses{byMode: tc.byMode}
			got, err := bestReading(f.recognize)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.asked, tc.wantAsked) {
				t.Errorf("modes asked %v, want %v", f.asked, tc.wantAsked)
			}
			if got != tc.want {
				t.Errorf("reading %+v, want %+v", got, tc.want)
			}
		})
	}
}
