module cairn-pdfcompare-fitz

go 1.26.8

require (
	github.com/gen2brain/go-fitz v1.24.15
	golang.org/x/text v0.43.0
)

require (
	github.com/ebitengine/purego v0.8.4 // indirect
	github.com/jupiterrider/ffi v0.5.0 // indirect
	golang.org/x/sys v0.33.0 // indirect
)
