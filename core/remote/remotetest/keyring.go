// Package remotetest holds a keyring in memory for tests of what stores and
// finds the online endpoint's API key.
package remotetest

import "cairn/core/remote"

// Keyring is a remote.Keyring in memory, keyed "service/user". Make it
// with Keyring{}.
type Keyring map[string]string

func (k Keyring) Get(service, user string) (string, error) {
	if v, ok := k[service+"/"+user]; ok {
		return v, nil
	}
	return "", remote.ErrNoKey
}

func (k Keyring) Set(service, user, secret string) error {
	k[service+"/"+user] = secret
	return nil
}

func (k Keyring) Delete(service, user string) error {
	delete(k, service+"/"+user)
	return nil
}
