module cairn

go 1.26.8

require (
	github.com/asg017/sqlite-vec-go-bindings v0.1.6
	github.com/ncruces/go-sqlite3 v0.21.3
	golang.org/x/net v0.62.0
	golang.org/x/sync v0.24.0
	golang.org/x/text v0.43.0
)

require (
	fyne.io/fyne/v2 v2.7.1 // indirect
	github.com/fsnotify/fsnotify v1.9.0 // indirect
	github.com/ncruces/julianday v1.0.0 // indirect
	github.com/tetratelabs/wazero v1.8.2 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
