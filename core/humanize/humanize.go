// Package humanize writes quantities the way a person reads them, the same
// in the window, the command line and error messages.
package humanize

import "fmt"

// Bytes gives a size in the largest binary unit under it: "512 B", "3 KB",
// "5.5 MB", "2.0 GB".
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}

// Cost shows an amount of money in the currency of the prices it came
// from, with enough decimals that a fraction of a cent does not show as 0.
func Cost(c float64) string {
	if c >= 0.01 {
		return fmt.Sprintf("%.2f", c)
	}
	return fmt.Sprintf("%.4f", c)
}
