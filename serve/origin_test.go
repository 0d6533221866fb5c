package serve

import (
	"net/http"
	"strings"
	"testing"
)

// The origin policy: a page of this computer may call the service with
// the token (and read the reply: CORS), a page of a web site may not. A
// preflight, which carries no token, is answered for the allowed origins
// only. One case per form of origin.
func TestOriginPolicy(t *testing.T) {
	base, _ := startServer(t, testEngine(t), Options{})
	for _, tc := range []struct {
		origin  string
		allowed bool
	}{
		{"app://obsidian.md", true},               // Electron apps' own scheme
		{"app://-", true},                         // electron-serve
		{"tauri://localhost", true},               // Tauri on macOS and Linux
		{"http://tauri.localhost", true},          // Tauri on Windows
		{"https://tauri.localhost", true},         //
		{"file://", true},                         // a page opened from a file (Firefox)
		{"null", true},                            // a file page (Chrome), a data: URL, a sandboxed frame
		{"vscode-webview://1a2b3c4d5e", true},     // a VS Code extension's webview
		{"chrome-extension://abcdefghijkl", true}, // a browser extension
		{"http://localhost:3000", true},           // a page served on this computer
		{"http://127.0.0.1:8080", true},           //
		{"http://[::1]:5173", true},               //
		{"https://example.com", false},            // a web site
		{"http://127.0.0.1.nip.io", false},        // a name that resolves here: DNS rebinding
		{"http://localhost.evil.example", false},  //
		{"ws://evil.example", false},              //
		{"not an origin", false},                  //
	} {
		t.Run(tc.origin, func(t *testing.T) {
			// The preflight: no token.
			req, _ := http.NewRequest("OPTIONS", base+"/v1/chat/completions", nil)
			req.Header.Set("Origin", tc.origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, x-stainless-os")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			h := resp.Header
			if tc.allowed {
				if resp.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != tc.origin ||
					h.Get("Access-Control-Allow-Headers") != "authorization, content-type, x-stainless-os" ||
					!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") || h.Get("Access-Control-Max-Age") != "600" {
					t.Errorf("preflight: %d %v", resp.StatusCode, h)
				}
			} else if resp.StatusCode != 403 || h.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("preflight of a refused origin: %d %v", resp.StatusCode, h)
			}

			// The request itself, with the token: allowed, and readable.
			status, body := call(t, "GET", base+"/api/health", testToken, "", "Origin", tc.origin)
			if tc.allowed != (status == 200) {
				t.Errorf("with the token: %d %s", status, body)
			}
			// Without the token: 401 like anyone, which the page can read.
			req, _ = http.NewRequest("GET", base+"/v1/models", nil)
			req.Header.Set("Origin", tc.origin)
			resp, err = http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := map[bool]int{true: 401, false: 403}[tc.allowed]
			if resp.StatusCode != want || tc.allowed != (resp.Header.Get("Access-Control-Allow-Origin") == tc.origin) {
				t.Errorf("without the token: %d, Access-Control-Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
			}
		})
	}
}
