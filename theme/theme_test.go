package theme

import (
	"image/color"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	fynetheme "fyne.io/fyne/v2/theme"
)

// contrast is the WCAG contrast ratio of two colours.
func contrast(a, b color.Color) float64 {
	lum := func(c color.Color) float64 {
		r, g, b, _ := c.RGBA()
		ch := func(v uint32) float64 {
			x := float64(v) / 0xffff
			if x <= 0.03928 {
				return x / 12.92
			}
			return math.Pow((x+0.055)/1.055, 2.4)
		}
		return 0.2126*ch(r) + 0.7152*ch(g) + 0.0722*ch(b)
	}
	l1, l2 := lum(a), lum(b)
	return (max(l1, l2) + 0.05) / (min(l1, l2) + 0.05)
}

func TestStatusColoursAreReadableInBothVariants(t *testing.T) {
	test.NewTempApp(t)
	th := New(System)
	for _, v := range []fyne.ThemeVariant{fynetheme.VariantLight, fynetheme.VariantDark} {
		bg := th.Color(fynetheme.ColorNameBackground, v)
		for n, on := range map[fyne.ThemeColorName]fyne.ThemeColorName{
			fynetheme.ColorNameSuccess: fynetheme.ColorNameForegroundOnSuccess,
			fynetheme.ColorNameWarning: fynetheme.ColorNameForegroundOnWarning,
			fynetheme.ColorNameError:   fynetheme.ColorNameForegroundOnError,
		} {
			c := th.Color(n, v)
			if r := contrast(c, bg); r < 4.5 {
				t.Errorf("variant %d: %s text on the background: contrast %.1f < 4.5", v, n, r)
			}
			if r := contrast(th.Color(on, v), c); r < 4.5 {
				t.Errorf("variant %d: text on a %s badge: contrast %.1f < 4.5", v, n, r)
			}
		}
	}
}

func TestChoiceOverridesTheSystemVariant(t *testing.T) {
	test.NewTempApp(t)
	light := fynetheme.VariantLight
	if New(Dark).Color(fynetheme.ColorNameBackground, light) != fynetheme.DefaultTheme().Color(fynetheme.ColorNameBackground, fynetheme.VariantDark) {
		t.Error("Dark does not give the dark background when the system is light")
	}
	if New(System).Color(fynetheme.ColorNameBackground, light) != fynetheme.DefaultTheme().Color(fynetheme.ColorNameBackground, light) {
		t.Error("System does not follow the system's variant")
	}
	if ParseChoice("purple") != System || ParseChoice("dark") != Dark {
		t.Error("ParseChoice")
	}
}

// Unticked checkboxes and radio buttons, drawn in the input border colour
// on the input background, stand out from it and from the window.
func TestUntickedControlsAreVisibleInBothVariants(t *testing.T) {
	test.NewTempApp(t)
	th := New(System)
	for _, v := range []fyne.ThemeVariant{fynetheme.VariantLight, fynetheme.VariantDark} {
		border := th.Color(fynetheme.ColorNameInputBorder, v)
		for _, under := range []fyne.ThemeColorName{fynetheme.ColorNameBackground, fynetheme.ColorNameInputBackground} {
			if r := contrast(border, th.Color(under, v)); r < 3 {
				t.Errorf("variant %d: input border on %s: contrast %.2f < 3", v, under, r)
			}
		}
	}
}

// over is colour c drawn over opaque colour under, as Fyne blends the focus
// colour over a button.
func over(under, c color.Color) color.Color {
	ur, ug, ub, _ := under.RGBA()
	r, g, b, a := c.RGBA() // premultiplied
	mix := func(u, v uint32) uint8 { return uint8((v + u*(0xffff-a)/0xffff) >> 8) }
	return color.NRGBA{R: mix(ur, r), G: mix(ug, g), B: mix(ub, b), A: 0xff}
}

// Tab shows where the focus is: a focused button differs from an unfocused
// one, whether it is the accent-coloured Ask or a flat Open, and its text
// stays readable.
func TestFocusIsVisibleOnEveryKindOfButton(t *testing.T) {
	test.NewTempApp(t)
	th := New(System)
	for _, v := range []fyne.ThemeVariant{fynetheme.VariantLight, fynetheme.VariantDark} {
		c := func(n fyne.ThemeColorName) color.Color { return th.Color(n, v) }
		focus := c(fynetheme.ColorNameFocus)
		for _, b := range []struct {
			name           string
			unfocused, bg  color.Color
			text           color.Color
			shift, reading float64
		}{
			// High importance (Ask): the accent, blended.
			{"accent", c(fynetheme.ColorNamePrimary), c(fynetheme.ColorNamePrimary), c(fynetheme.ColorNameForegroundOnPrimary), 1.4, 3},
			// Low importance (Open, Copy, Why): no fill until focused.
			{"flat", c(fynetheme.ColorNameBackground), c(fynetheme.ColorNameButton), c(fynetheme.ColorNameForeground), 1.4, 4.5},
			{"plain", c(fynetheme.ColorNameButton), c(fynetheme.ColorNameButton), c(fynetheme.ColorNameForeground), 1.4, 4.5},
		} {
			focused := over(b.bg, focus)
			if r := contrast(focused, b.unfocused); r < b.shift {
				t.Errorf("variant %d, %s button: focused and unfocused differ by %.2f < %.1f", v, b.name, r, b.shift)
			}
			if r := contrast(b.text, focused); r < b.reading {
				t.Errorf("variant %d, %s button: text on the focused button %.2f < %.1f", v, b.name, r, b.reading)
			}
		}
	}
}
