package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"time"

	"cairn/core/fault"
)

// Update saves the settings a writer changed, and only those: the keys
// whose value in c differs from base (what the writer read, or last
// saved) are set on the settings file as it is now, under a lock. The
// window and `cairn models use` (or `cairn network`) each change their own
// keys, and neither undoes the other's: a slider moved in the window keeps
// the model the command line chose a minute before, and the network mode
// `cairn network offline` set.
func Update(d Dirs, base, c Config) error {
	unlock, err := lockSettings(d)
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := Load(d) // no file yet is the defaults
	if err != nil {
		return fault.New(fault.ConfigUnreadable, "the settings file does not load, so changes are not saved over it",
			"fix "+d.SettingsFile()+" (`cairn doctor` says what is wrong)", err)
	}
	merge(&cur, base, c)
	return Save(d, cur)
}

// merge sets on cur every setting (a section's field) whose value in c
// differs from base.
func merge(cur *Config, base, c Config) {
	cv, bv, nv := reflect.ValueOf(cur).Elem(), reflect.ValueOf(base), reflect.ValueOf(c)
	for i := range cv.NumField() {
		if !cv.Type().Field(i).IsExported() {
			continue
		}
		cs, bs, ns := cv.Field(i), bv.Field(i), nv.Field(i)
		if cs.Kind() != reflect.Struct {
			if !reflect.DeepEqual(bs.Interface(), ns.Interface()) {
				cs.Set(ns)
			}
			continue
		}
		for j := range cs.NumField() {
			if !cs.Type().Field(j).IsExported() {
				continue
			}
			if !reflect.DeepEqual(bs.Field(j).Interface(), ns.Field(j).Interface()) {
				cs.Field(j).Set(ns.Field(j))
			}
		}
	}
}

// lockStale is how old a lock file may grow before it is taken for one
// left by a process that died holding it: a save takes milliseconds.
const lockStale = 10 * time.Second

// lockSettings takes the settings file's lock (a file made beside it with
// O_EXCL, which works on every system and file system Cairn runs on),
// waiting up to 5 s for another writer; it returns the release.
func lockSettings(d Dirs) (func(), error) {
	if err := os.MkdirAll(d.Config, 0o700); err != nil {
		return nil, fmt.Errorf("save settings: %w", err)
	}
	path := d.SettingsFile() + ".lock"
	deadline := time.Now().Add(5 * time.Second)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("save settings: lock: %w", err)
		}
		if fi, serr := os.Stat(path); serr == nil && time.Since(fi.ModTime()) > lockStale {
			os.Remove(path) // its writer died holding it
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("save settings: %s is held by another Cairn process; try again, or delete it if none is running", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
