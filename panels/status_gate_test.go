package panels

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// TestGateBadgeColours: team mode, which reaches only the team's cluster,
// is amber like online, not red like admin or an unknown mode.
func TestGateBadgeColours(t *testing.T) {
	for mode, want := range map[string]fyne.ThemeColorName{
		"offline": theme.ColorNameSuccess, "team": theme.ColorNameWarning, "online": theme.ColorNameWarning,
		"admin": theme.ColorNameError, "sideways": theme.ColorNameError,
	} {
		if got := GateColor(mode); got != want {
			t.Errorf("%s: %s, want %s", mode, got, want)
		}
	}
}
