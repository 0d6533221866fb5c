package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/core"
	"cairn/core/config"
	"cairn/serve"
)

// runServe runs the local service: the HTTP API and MCP at /mcp on
// 127.0.0.1, with the bearer token from the config folder.
// The service drives a core.Engine through serve.Engine.
var _ serve.Engine = (*core.Engine)(nil)

func runServe(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	port := fs.Int("port", env.cfg.Serve.Port, "port on 127.0.0.1 (0: a free one, printed)")
	socket := fs.String("socket", "", "listen on a Unix socket at this path (mode 0600) instead of 127.0.0.1; with --port as well, on both")
	printToken := fs.Bool("print-token", false, "print the bearer token (created at the first start) and exit")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"serve takes no arguments: cairn serve [--port N] [--socket PATH] [--print-token]"}
	}
	portGiven := false
	fs.Visit(func(f *flag.Flag) { portGiven = portGiven || f.Name == "port" })
	if *port < 0 || *port > 65535 {
		return usageError{fmt.Sprintf("invalid flag value: --port %d: use a port from 0 to 65535 (0: a free one)", *port)}
	}
	token, err := serve.Token(env.dirs.Config)
	if err != nil {
		return err
	}
	if *printToken {
		fmt.Fprintln(env.stdout, token)
		return nil
	}
	// For writing, as the window opens it: the service can index.
	eng, err := kb.openWrite(ctx, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	eng.WarmKeywordIndex()
	var lns []net.Listener
	if *socket != "" {
		ln, err := serve.ListenUnix(*socket)
		if err != nil {
			return err
		}
		lns = append(lns, ln)
	}
	if *socket == "" || portGiven {
		ln, err := serve.Listen(*port)
		if err != nil {
			for _, l := range lns {
				l.Close() // removes the socket
			}
			return err
		}
		lns = append(lns, ln)
	}
	srv := serve.New(eng, serve.Options{Token: token, Version: Version, Log: env.log,
		// The network mode, and only it, as `cairn network` saves it.
		SaveNetworkMode: func(string) error {
			cfg := env.cfg
			cfg.Network = eng.Config().Network
			return config.Update(env.dirs, env.cfg, cfg)
		}})
	for _, ln := range lns {
		if ln.Addr().Network() == "unix" {
			sock := ln.Addr().String()
			fmt.Fprintf(env.stdout, "Cairn serves %s on the Unix socket %s\n", eng.Path(), sock)
			fmt.Fprintf(env.stdout, "  API: curl --unix-socket %s http://localhost/api/health   MCP: http://localhost/mcp\n", sock)
		} else {
			addr := ln.Addr().String()
			fmt.Fprintf(env.stdout, "Cairn serves %s on http://%s\n", eng.Path(), addr)
			fmt.Fprintf(env.stdout, "  API: http://%s/api/ (OpenAPI at /api/openapi.json)   MCP: http://%s/mcp   OpenAI-compatible: http://%s/v1\n", addr, addr, addr)
		}
		env.log.Info("serving", "addr", ln.Addr().String())
	}
	fmt.Fprintln(env.stdout, "  Every request needs `Authorization: Bearer TOKEN`; `cairn serve --print-token` shows it. Ctrl+C stops.")
	return srv.Serve(ctx, lns...)
}

// runMCP speaks the Model Context Protocol on standard input and output,
// for an assistant that starts Cairn itself. The knowledge base is opened
// read-only, so the window may hold it meanwhile.
func runMCP(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"mcp takes no arguments: cairn mcp [--kb NAME|--db PATH]"}
	}
	eng, err := kb.open(ctx, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	eng.WarmKeywordIndex()
	srv := serve.New(eng, serve.Options{Version: Version, Log: env.log})
	t := &mcp.IOTransport{Reader: io.NopCloser(env.stdin), Writer: nopWriteCloser{env.stdout}}
	return srv.MCP().Run(ctx, t)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
