package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"cairn/core/config"
	"cairn/core/netgate"
	"cairn/core/netgate/network"
	"cairn/core/remote"
)

// runNetwork shows or switches the network gate's mode, and manages the
// online endpoint's API key in the keyring.
func runNetwork(_ context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("network", flag.ContinueOnError)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 2 || (len(pos) == 2 && pos[0] != "key") {
		return usageError{"network takes one mode (offline, team, online, admin) or `key [show|set|delete]`"}
	}
	var mode netgate.Mode
	if len(pos) == 1 && pos[0] != "key" {
		if mode, err = netgate.ParseMode(pos[0]); err != nil {
			return usageError{err.Error()}
		}
	}
	// The gate alone: no knowledge base is opened, so this works while the
	// window holds it or when it is damaged.
	eng, err := network.Open(env.cfg, env.dirs, network.Options{Dial: env.dial, Keyring: env.keyring})
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		showNetwork(env.stdout, eng)
		return nil
	case pos[0] == "key":
		sub := "show"
		if len(pos) == 2 {
			sub = pos[1]
		}
		return runKey(env, eng, sub)
	}
	if err := switchNetworkMode(env, eng, mode); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Network mode: %s (saved in %s).\n", mode, env.dirs.SettingsFile())
	fmt.Fprintln(env.stdout, modeMeaning(eng, mode))
	fmt.Fprintf(env.stdout, "Every connection is recorded in %s.\n", eng.AuditLog())
	return nil
}

// switchNetworkMode switches the gate and saves the mode, and only the
// mode (config.Update: the window may have saved other settings since
// this command read them). When the settings cannot be saved, the gate
// goes back, so the audit log tells what really applies.
func switchNetworkMode(env *cliEnv, eng *network.Network, mode netgate.Mode) error {
	old := eng.NetworkMode()
	if err := eng.SetNetworkMode(string(mode)); err != nil {
		return err
	}
	cfg := env.cfg
	cfg.Network = eng.NetworkConfig()
	if err := config.Update(env.dirs, env.cfg, cfg); err != nil {
		if rerr := eng.SetNetworkMode(old); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return fmt.Errorf("network mode not switched: could not save the settings: %w", err)
	}
	return nil
}

// modeMeaning says what a mode lets through.
func modeMeaning(eng *network.Network, m netgate.Mode) string {
	info := m.Info()
	switch {
	case !info.Leaves:
		return "Allowed: this computer only (localhost, 127.0.0.0/8, ::1)."
	case info.Unrestricted:
		return "Allowed: every host (maintenance only; switch back with `cairn network offline`)."
	case m == netgate.Team:
		if c := eng.Cluster(); len(c) > 0 {
			return "Allowed: this computer and the team's cluster " + strings.Join(c, ", ") + "."
		}
		return "Allowed: this computer only: no team cluster is set (store.backend weaviate with store.url)."
	}
	return "Allowed: this computer and " + strings.Join(eng.Allowed(), ", ") + "."
}

func showNetwork(w io.Writer, eng *network.Network) {
	mode := eng.Mode()
	n := eng.NetworkConfig()
	fmt.Fprintf(w, "Network mode: %s\n%s\n", mode, modeMeaning(eng, mode))
	if mode != netgate.Online {
		fmt.Fprintf(w, "Online mode would allow: this computer and %s.\n", strings.Join(eng.Allowed(), ", "))
	}
	fmt.Fprintf(w, "Audit log: %s\n", eng.AuditLog())
	if n.Endpoint == "" {
		fmt.Fprintln(w, "Online answers: none configured (set network.endpoint, network.api and network.chat_model)")
	} else {
		fmt.Fprintf(w, "Online answers: %s API at %s, model %s\n", n.API, netgate.RedactURL(n.Endpoint), orDash(n.ChatModel))
	}
	fmt.Fprintln(w, "API key: "+describeKey(eng.APIKey()))
	if c := eng.Cluster(); len(c) > 0 {
		k := eng.WeaviateKey()
		key := "none (set " + remote.WeaviateKeyEnv + " or the keyring entry cairn/weaviate_key)"
		if k.Value != "" {
			key = k.Masked() + " from " + k.Source
		} else if k.Note != "" {
			key += "; " + k.Note
		}
		fmt.Fprintf(w, "Team cluster (store.backend weaviate): %s; its key: %s\n", strings.Join(c, ", "), key)
	}
	fmt.Fprintln(w, "Switch with `cairn network offline|team|online|admin` or under Network gate in the window's Engineering tab.")
}

func describeKey(k remote.Key) string {
	if k.Value != "" {
		return k.Masked() + " from " + k.Source
	}
	s := "none (set " + remote.KeyEnv + " or run `cairn network key set`)"
	if k.Note != "" {
		s += "; " + k.Note
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "(network.chat_model is not set)"
	}
	return s
}

// runKey shows, stores or removes the API key in the keyring.
func runKey(env *cliEnv, eng *network.Network, sub string) error {
	switch sub {
	case "show":
		fmt.Fprintln(env.stdout, "API key: "+describeKey(eng.APIKey()))
		return nil
	case "set":
		key, err := readKey(env)
		if err != nil {
			return err
		}
		if err := remote.StoreKey(eng.Keyring(), key); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "Stored the API key %s in the keyring.\n", remote.Mask(strings.TrimSpace(key)))
		if os.Getenv(remote.KeyEnv) != "" {
			fmt.Fprintf(env.stdout, "%s is set too, and wins while it is.\n", remote.KeyEnv)
		}
		return nil
	case "delete":
		if err := remote.DeleteKey(eng.Keyring()); err != nil {
			return err
		}
		fmt.Fprintln(env.stdout, "Removed the API key from the keyring.")
		return nil
	}
	return usageError{fmt.Sprintf("unknown network key command %q (show, set, delete)", sub)}
}

// readKey reads the key from the terminal without echo, or a line from a
// pipe (`secret-tool lookup … | cairn network key set`).
func readKey(env *cliEnv) (string, error) {
	if f, ok := env.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(env.stderr, "API key (not shown): ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(env.stderr)
		if err != nil {
			return "", fmt.Errorf("reading the API key: %w", err)
		}
		return string(b), nil
	}
	if env.stdin == nil {
		return "", usageError{"network key set reads the key from standard input"}
	}
	line, err := bufio.NewReader(env.stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("reading the API key: %w", err)
	}
	return line, nil
}
