package main

import (
	"context"
	"errors"
)

// pullModel downloads a catalog model through the network gate.
func pullModel(ctx context.Context, env *cliEnv, args []string) error {
	return errors.New("models pull is not available yet")
}
