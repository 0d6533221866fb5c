package collection

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Period is a span of time: from Start (inclusive) to End (exclusive).
type Period struct {
	Start, End time.Time
}

// ParseDate reads a day, month or year ("2024-03-15", "2024-03", "2024")
// in loc and returns the period it names, so that --until 2024-03 keeps
// the whole of March.
func ParseDate(s string, loc *time.Location) (Period, error) {
	s = strings.TrimSpace(s)
	for _, l := range []struct {
		layout string
		next   func(time.Time) time.Time
	}{
		{"2006-01-02", func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }},
		{"2006-01", func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }},
		{"2006", func(t time.Time) time.Time { return t.AddDate(1, 0, 0) }},
	} {
		if t, err := time.ParseInLocation(l.layout, s, loc); err == nil {
			return Period{t, l.next(t)}, nil
		}
	}
	return Period{}, fmt.Errorf("%q is not a date: write 2024, 2024-03 or 2024-03-15", s)
}

// String names the period as a person would: "2024", "March 2024",
// "15 March 2024", or "from 2024-03-02 to 2024-05-01".
func (p Period) String() string {
	s, e := p.Start, p.End
	switch {
	case s.IsZero() && e.IsZero():
		return "at any time"
	case e.IsZero():
		return "since " + day(s)
	case s.IsZero():
		return "before " + day(e)
	case s.Month() == 1 && s.Day() == 1 && e.Equal(s.AddDate(1, 0, 0)):
		return "in " + strconv.Itoa(s.Year())
	case s.Day() == 1 && e.Equal(s.AddDate(0, 1, 0)):
		return "in " + s.Format("January 2006")
	case e.Equal(s.AddDate(0, 0, 1)):
		return "on " + s.Format("2 January 2006")
	}
	return "from " + day(s) + " to " + day(e.AddDate(0, 0, -1))
}

func day(t time.Time) string { return t.Format("2006-01-02") }
