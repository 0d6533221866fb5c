package resources

import _ "embed"

//go:generate go run ./iconmaker -o icon.png

//go:embed icon.png
var iconPNG []byte

// IconPNG is Cairn's application icon, a 512x512 PNG drawn by iconmaker.
// (It is bytes, not a Fyne resource: core imports this package and must not
// depend on Fyne.)
func IconPNG() []byte { return iconPNG }
