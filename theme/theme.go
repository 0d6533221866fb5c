// Package theme is Cairn's look: Fyne's default theme with Cairn's colours,
// in a light and a dark variant, following the system's preference unless
// the person picks one. Sizes stay Fyne's, which scale with the screen's
// density (and FYNE_SCALE), so text stays readable on high-DPI displays.
package theme

import (
	"image/color"

	"fyne.io/fyne/v2"
	fynetheme "fyne.io/fyne/v2/theme"
)

// Choice is which variant the window uses.
type Choice string

const (
	System Choice = "system" // follow the desktop's light or dark preference
	Light  Choice = "light"
	Dark   Choice = "dark"
)

// Choices lists the choices in menu order.
func Choices() []Choice { return []Choice{System, Light, Dark} }

// Label is the choice's menu text.
func (c Choice) Label() string {
	switch c {
	case Light:
		return "Light"
	case Dark:
		return "Dark"
	default:
		return "Follow the system"
	}
}

// ParseChoice reads a stored choice; anything unknown follows the system.
func ParseChoice(s string) Choice {
	switch Choice(s) {
	case Light, Dark:
		return Choice(s)
	default:
		return System
	}
}

// New returns Cairn's theme for a choice.
func New(c Choice) fyne.Theme { return &cairn{choice: c} }

type cairn struct{ choice Choice }

// Cairn's colours: a slate blue accent, and the status colours (verdict
// badges, the network gate: offline green, online amber, admin red). Each
// status colour is dark on the light variant and light on the dark one, so
// that as text it keeps a 4.5:1 contrast with the background, and the
// "foreground on" colours keep that contrast on it as a badge.
var (
	accentLight = color.NRGBA{R: 0x2f, G: 0x5d, B: 0x8a, A: 0xff}
	accentDark  = color.NRGBA{R: 0x7f, G: 0xa8, B: 0xd4, A: 0xff}
	status      = map[fyne.ThemeColorName][2]color.NRGBA{ // light, dark
		fynetheme.ColorNameSuccess: {{R: 0x1e, G: 0x7b, B: 0x34, A: 0xff}, {R: 0x6c, G: 0xcf, B: 0x84, A: 0xff}},
		fynetheme.ColorNameWarning: {{R: 0x9a, G: 0x5b, B: 0x00, A: 0xff}, {R: 0xf2, G: 0xb1, B: 0x4c, A: 0xff}},
		fynetheme.ColorNameError:   {{R: 0xb3, G: 0x26, B: 0x1e, A: 0xff}, {R: 0xff, G: 0x8a, B: 0x80, A: 0xff}},
	}
	onStatus = map[fyne.ThemeColorName]fyne.ThemeColorName{
		fynetheme.ColorNameForegroundOnSuccess: fynetheme.ColorNameSuccess,
		fynetheme.ColorNameForegroundOnWarning: fynetheme.ColorNameWarning,
		fynetheme.ColorNameForegroundOnError:   fynetheme.ColorNameError,
	}
	// focus is blended over the focused button, check or slider: the other
	// variant's accent, lighter on the light theme and darker on the dark
	// one. The accent itself vanished on the accent-coloured Ask button.
	focusLight = color.NRGBA{R: 0x7f, G: 0xa8, B: 0xd4, A: 0x73}
	focusDark  = color.NRGBA{R: 0x2f, G: 0x5d, B: 0x8a, A: 0xa6}
	// inputBorder outlines entries and draws unticked checkboxes and radio
	// buttons: Fyne's own (#e3e3e3 on white) left them nearly invisible.
	// These keep WCAG's 3:1 for controls against the background and the
	// inputs' fill.
	inputBorder = [2]color.NRGBA{{R: 0x80, G: 0x80, B: 0x80, A: 0xff}, {R: 0x6e, G: 0x6e, B: 0x6e, A: 0xff}} // light, dark
	ink         = [2]color.NRGBA{{R: 0xff, G: 0xff, B: 0xff, A: 0xff}, {R: 0x14, G: 0x14, B: 0x14, A: 0xff}} // on light, on dark
)

func (t *cairn) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	switch t.choice {
	case Light:
		v = fynetheme.VariantLight
	case Dark:
		v = fynetheme.VariantDark
	}
	switch n {
	case fynetheme.ColorNamePrimary, fynetheme.ColorNameHyperlink:
		if v == fynetheme.VariantDark {
			return accentDark
		}
		return accentLight
	case fynetheme.ColorNameFocus:
		if v == fynetheme.VariantDark {
			return focusDark
		}
		return focusLight
	}
	dark := 0
	if v == fynetheme.VariantDark {
		dark = 1
	}
	if n == fynetheme.ColorNameInputBorder {
		return inputBorder[dark]
	}
	if c, ok := status[n]; ok {
		return c[dark]
	}
	if _, ok := onStatus[n]; ok {
		return ink[dark]
	}
	return fynetheme.DefaultTheme().Color(n, v)
}

func (t *cairn) Font(s fyne.TextStyle) fyne.Resource { return fynetheme.DefaultTheme().Font(s) }

func (t *cairn) Icon(n fyne.ThemeIconName) fyne.Resource { return fynetheme.DefaultTheme().Icon(n) }

func (t *cairn) Size(n fyne.ThemeSizeName) float32 { return fynetheme.DefaultTheme().Size(n) }
