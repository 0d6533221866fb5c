// Package doctor checks that Cairn can work: the build (version, GPU
// backend), the settings, the knowledge
// base (integrity, full-text index, orphans, vectors), file permissions,
// free disk space, the models, OCR, the network gate and the log. It is
// `cairn doctor` and the window's Check health; it changes nothing. Its
// report's types are core/doctor/health's, which the window reads without
// loading what the checks need (llama.cpp, Tesseract).
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cairn/core/buildinfo"
	"cairn/core/config"
	"cairn/core/doctor/health"
	"cairn/core/domain"
	"cairn/core/extract"
	"cairn/core/fault"
	"cairn/core/kb"
	"cairn/core/llm"
	"cairn/core/llm/models"
	"cairn/core/logs"
	"cairn/core/netgate"
	"cairn/core/ocr"
	"cairn/core/search"
	"cairn/core/store"
)

// Options say what Run examines.
type Options struct {
	KB, DB string // the knowledge base, as for Open
	// Load loads the models through llama.cpp, rather than only reading
	// their GGUF metadata (slower; needs the memory).
	Load bool
	// ConfigErr is the error the settings failed to load with, when the
	// caller carries on with config.Fallback.
	ConfigErr error
}

// Run checks Cairn's health: the settings, the knowledge base (SQLite's
// integrity, the full-text index, orphans, vectors), file permissions, free
// disk space, the models, OCR, the network gate's mode and the log. It
// never changes the knowledge base beyond what opening it does (bringing
// an older schema up to date), and creates none.
func Run(ctx context.Context, cfg config.Config, dirs config.Dirs, opt Options) []health.Check {
	var out []health.Check
	add := func(c health.Check) { out = append(out, c) }
	add(checkVersion())
	add(checkSettings(dirs, opt.ConfigErr))
	path, err := kb.File(cfg, opt.KB, opt.DB)
	diskOf := cfg.Paths.DataDir // the disk that holds the knowledge base in use
	if err != nil {
		add(health.Check{Verdict: health.Fail, Name: "knowledge base", Detail: err.Error(), Fix: "give a name without a path (--kb) or a file (--db)"})
	} else {
		out = append(out, checkKB(ctx, path)...)
		add(checkPermissions(path, dirs))
		diskOf = filepath.Dir(path)
	}
	add(checkDisk(diskOf))
	add(checkDevice(cfg.LLM.Device))
	add(checkModel(cfg, "embedding model", cfg.Embedding.Model, llm.KindEmbedding, opt.Load))
	add(checkModel(cfg, "chat model", cfg.Generation.Model, llm.KindGeneration, opt.Load))
	if cfg.Rerank.Enabled {
		add(checkModel(cfg, "reranker", cfg.Rerank.Model, llm.KindRerank, opt.Load))
	}
	add(checkOCR(cfg.OCR))
	add(checkPoppler(ctx))
	add(checkNetwork(cfg.Network))
	add(checkLog(dirs, cfg.Log.Level))
	return out
}

// checkVersion names the build, as `cairn version` does: the version, the
// commit and build date, and whether the GPU backend is in. It never fails.
func checkVersion() health.Check {
	return health.Check{Verdict: health.Pass, Name: "version",
		Detail: buildinfo.Read().String() + "; GPU backend: " + llm.BackendStatus()}
}

// failFrom is a failed check caused by err, with its fault's fix and code.
func failFrom(name string, err error, fallbackFix string) health.Check {
	c := health.Check{Verdict: health.Fail, Name: name, Detail: fault.FirstLine(err.Error()), Fix: fallbackFix}
	if f, ok := fault.As(err); ok {
		c.Fix, c.Code = f.Fix, f.Code
	}
	return c
}

func checkSettings(dirs config.Dirs, loadErr error) health.Check {
	file := dirs.SettingsFile()
	if loadErr != nil {
		c := failFrom("settings", loadErr, "fix or delete "+file)
		c.Detail += " (this check used the defaults)"
		return c
	}
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return health.Check{Verdict: health.Pass, Name: "settings", Detail: "no settings file; the defaults and CAIRN_* variables apply"}
	}
	return health.Check{Verdict: health.Pass, Name: "settings", Detail: file + " is valid"}
}

// damaged is the fix for a knowledge base that failed its checks.
const damaged = "restore a backup (`cairn restore BACKUP.db`, with --kb or --db), or delete the knowledge base file and index the folders again"

// checkKB opens the knowledge base and runs the store's checks.
func checkKB(ctx context.Context, path string) []health.Check {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []health.Check{{Verdict: health.Warn, Name: "knowledge base", Detail: path + " does not exist yet",
			Fix: "index a folder: `cairn index FOLDER` (or File > Add folder in the window)"}}
	}
	if err != nil {
		return []health.Check{failFrom("knowledge base", err, "check that the file is readable by you")}
	}
	db, err := store.Open(path, store.Options{Readers: 1, ReadOnly: true})
	if err != nil {
		return []health.Check{failFrom(kbCheckName(err), err, damaged)}
	}
	defer db.Close()
	if v := db.Version(); v < store.SchemaVersion {
		return []health.Check{{Verdict: health.Warn, Name: "knowledge base", Code: fault.StoreOlder,
			Detail: fmt.Sprintf("%s has schema %d, from an older Cairn; this one uses %d", path, v, store.SchemaVersion),
			Fix:    "run `cairn index FOLDER` on it once (or open it in the window), which brings it up to date; then run doctor again"}}
	}
	h, err := db.Health(ctx)
	if err != nil {
		return []health.Check{failFrom(kbCheckName(err), err, damaged)}
	}
	if len(h.Integrity) > 0 {
		return []health.Check{{Verdict: health.Fail, Name: "integrity", Code: fault.StoreCorrupt, Fix: damaged,
			Detail: fmt.Sprintf("%s is damaged: %s", path, strings.Join(h.Integrity[:min(3, len(h.Integrity))], "; "))}}
	}
	st, err := db.Stats(ctx)
	if err != nil {
		return []health.Check{failFrom(kbCheckName(err), err, damaged)}
	}
	out := []health.Check{
		{Verdict: health.Pass, Name: "knowledge base", Detail: fmt.Sprintf("%s: schema %d, %d documents, %d chunks, %.1f MB",
			path, st.SchemaVersion, st.Documents, st.Chunks, float64(fi.Size())/(1<<20))},
		{Verdict: health.Pass, Name: "integrity", Detail: "SQLite's integrity check is ok"},
	}
	if h.FTS != "" {
		out = append(out, health.Check{Verdict: health.Fail, Name: "full-text index", Code: fault.StoreCorrupt, Fix: damaged,
			Detail: "out of step with the chunks: " + h.FTS})
	} else {
		out = append(out, health.Check{Verdict: health.Pass, Name: "full-text index", Detail: fmt.Sprintf("in step with %d chunks", st.Chunks)})
	}
	if len(h.Orphans) > 0 {
		out = append(out, health.Check{Verdict: health.Fail, Name: "consistency", Code: fault.StoreCorrupt, Fix: damaged,
			Detail: strings.Join(h.Orphans, "; ")})
	} else {
		out = append(out, health.Check{Verdict: health.Pass, Name: "consistency", Detail: "every chunk has its document, every document its folder"})
	}
	switch {
	case len(h.Vectors) > 0:
		out = append(out, health.Check{Verdict: health.Fail, Name: "vectors", Code: fault.StoreCorrupt, Detail: strings.Join(h.Vectors, "; "),
			Fix: "choose the embedding model again (`cairn models use PATH`) and run `cairn index FOLDER`, or " + damaged})
	case st.VectorModel == "":
		out = append(out, health.Check{Verdict: health.Pass, Name: "vectors", Detail: "none (keyword search only)"})
	case h.Unembedded > 0:
		out = append(out, health.Check{Verdict: health.Warn, Name: "vectors", Detail: fmt.Sprintf("%d of %d chunks wait for vectors of %s", h.Unembedded, st.Chunks, st.VectorModel),
			Fix: "run `cairn index FOLDER` (or Re-index in the window) to compute them"})
	default:
		out = append(out, health.Check{Verdict: health.Pass, Name: "vectors", Detail: fmt.Sprintf("%d vectors of %s, %d dimensions as recorded", st.Vectors, st.VectorModel, st.VectorDim)})
	}
	switch busy, err := db.Indexing(); {
	case err != nil:
		out = append(out, health.Check{Verdict: health.Warn, Name: "indexing", Detail: fault.FirstLine(err.Error())})
	case busy:
		out = append(out, health.Check{Verdict: health.Warn, Name: "indexing", Detail: domain.ErrIndexing.Error(), Code: fault.StoreBusy,
			Fix: "the checks above saw the knowledge base as it was while that run wrote; run doctor again when it is done"})
	default:
		out = append(out, health.Check{Verdict: health.Pass, Name: "indexing", Detail: "no indexing run in progress"})
	}
	return out
}

// kbCheckName names the check a knowledge base error fails: damage is an
// integrity failure wherever it is found.
func kbCheckName(err error) string {
	if c := fault.CodeOf(err); c == fault.StoreCorrupt || c == fault.StoreNotKB {
		return "integrity"
	}
	return "knowledge base"
}

// checkPermissions wants the knowledge base's files, the settings and the
// log readable by the user only: they hold document text and questions.
func checkPermissions(kb string, dirs config.Dirs) health.Check {
	var loose []string
	files := store.PrivateFiles(kb)
	files[dirs.SettingsFile()] = 0
	if m, err := filepath.Glob(filepath.Join(dirs.State, logs.FileName+"*")); err == nil {
		for _, p := range m {
			files[p] = 0
		}
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if fi.Mode().Perm()&0o077 != 0 {
			loose = append(loose, fmt.Sprintf("%s is %04o", p, fi.Mode().Perm()))
		}
	}
	for _, d := range []string{filepath.Dir(kb), dirs.Config, dirs.State} {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o077 != 0 && !sharedDir(d) {
			loose = append(loose, fmt.Sprintf("%s/ is %04o", d, fi.Mode().Perm()))
		}
	}
	if len(loose) > 0 {
		return health.Check{Verdict: health.Warn, Name: "permissions", Detail: "readable by other users: " + strings.Join(loose, ", "),
			Fix: "chmod 600 the files and chmod 700 the folders (Cairn creates them so)"}
	}
	if f, err := os.OpenFile(kb, os.O_RDWR, 0); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return health.Check{Verdict: health.Fail, Name: "permissions", Detail: kb + " is not writable: " + err.Error(), Code: fault.StoreReadOnly,
			Fix: "give your user write permission on the file and its folder"}
	}
	return health.Check{Verdict: health.Pass, Name: "permissions", Detail: "knowledge base, settings and log are readable by you only"}
}

// sharedDir reports folders Cairn did not create and should not judge: a
// knowledge base given with --db may live in any folder.
func sharedDir(d string) bool {
	home, _ := os.UserHomeDir()
	return d == home || d == "/tmp" || d == os.TempDir()
}

// Free space thresholds of the knowledge base's disk.
const (
	diskFail = 64 << 20 // below this a run stops at its next write
	diskWarn = 1 << 30
)

func checkDisk(dir string) health.Check {
	probe := dir
	for { // the data folder may not exist yet: measure the nearest parent
		if _, err := os.Stat(probe); err == nil || filepath.Dir(probe) == probe {
			break
		}
		probe = filepath.Dir(probe)
	}
	free, err := store.FreeSpace(probe)
	if err != nil {
		return health.Check{Verdict: health.Warn, Name: "disk space", Detail: err.Error()}
	}
	detail := fmt.Sprintf("%.1f GB free for %s", float64(free)/(1<<30), dir)
	switch {
	case free < diskFail:
		return health.Check{Verdict: health.Fail, Name: "disk space", Detail: detail, Code: fault.StoreFull,
			Fix: "free space on that disk: indexing stops (cleanly) when it runs out"}
	case free < diskWarn:
		return health.Check{Verdict: health.Warn, Name: "disk space", Detail: detail, Fix: "free space on that disk before indexing large folders"}
	}
	return health.Check{Verdict: health.Pass, Name: "disk space", Detail: detail}
}

// checkModel finds the model the settings choose and reads its metadata
// (or loads it, with load).
func checkModel(cfg config.Config, name, setting string, kind llm.Kind, load bool) health.Check {
	path, err := models.Resolve(cfg, setting, kind)
	switch {
	case err != nil:
		return failFrom(name, err, "choose another model with `cairn models use PATH`")
	case path == "" && kind == llm.KindEmbedding:
		return health.Check{Verdict: health.Pass, Name: name, Detail: "none: keyword search only (an embedding GGUF in " + cfg.Paths.ModelsDir + " adds meaning search)"}
	case path == "" && kind == llm.KindRerank:
		return health.Check{Verdict: health.Pass, Name: name, Detail: "none: results keep the fused order (a reranker GGUF in " + cfg.Paths.ModelsDir + " reorders them)"}
	case path == "":
		return health.Check{Verdict: health.Pass, Name: name, Detail: "none: answers are extractive (a chat GGUF in " + cfg.Paths.ModelsDir + " writes them)"}
	}
	md, err := llm.ReadMetadata(path)
	if err != nil {
		return failFrom(name, models.Fault(path, kind, err), "")
	}
	if k, err := models.KindOf(md); err != nil || k != kind {
		return failFrom(name, models.Fault(path, kind, fmt.Errorf("%s is not a %s model", path, kind)), "")
	}
	label := md.Name
	if label == "" {
		label = filepath.Base(path)
	}
	detail := fmt.Sprintf("%s (%s, %.0f MB) %s", label, md.Architecture, float64(md.Size)/(1<<20), path)
	if !load {
		return health.Check{Verdict: health.Pass, Name: name, Detail: detail + "; metadata read (--load also loads it)"}
	}
	start := time.Now()
	var on llm.Device
	switch kind {
	case llm.KindEmbedding:
		var m *llm.Embedder
		if m, err = llm.LoadEmbedder(path, llm.EmbedderOptions{Threads: cfg.Embedding.Threads, Dim: cfg.Embedding.Dim, Device: cfg.LLM.Device}); err == nil {
			on = m.Device()
		}
		m.Close()
	case llm.KindRerank:
		var m *llm.Reranker
		if m, err = llm.LoadReranker(path, llm.RerankerOptions{Threads: cfg.Rerank.Threads, Device: cfg.LLM.Device}); err == nil {
			on = m.Device()
			budget := time.Duration(cfg.Rerank.BudgetSec * float64(time.Second))
			detail += fmt.Sprintf("; %s a pair here, so the %s budget reranks %d", m.PerPair().Round(time.Millisecond),
				budget, search.RerankN(budget, m.PerPair()))
		}
		m.Close()
	default:
		var m *llm.Generator
		if m, err = llm.LoadGenerator(path, llm.GeneratorOptions{ContextSize: cfg.Generation.ContextSize, Threads: cfg.Generation.Threads, Device: cfg.LLM.Device}); err == nil {
			on = m.Device()
		}
		m.Close()
	}
	if err != nil {
		return failFrom(name, models.Fault(path, kind, err), "")
	}
	return health.Check{Verdict: health.Pass, Name: name, Detail: fmt.Sprintf("%s; loaded in %d ms on %s", detail, time.Since(start).Milliseconds(), on)}
}

// checkDevice says where the models run (llm.device): the GPU chosen, or
// the CPU and why no GPU is used, with the other devices there are. A
// setting naming a device that is not here fails: the models would not
// load.
func checkDevice(setting string) health.Check {
	d, err := llm.SelectDevice(setting)
	if err != nil {
		return health.Check{Verdict: health.Fail, Name: "device", Detail: err.Error(),
			Fix: "set llm.device to auto, cpu or one of the devices listed"}
	}
	detail := d.String()
	if setting == llm.DeviceCPU {
		// The GPU backend is not loaded for the CPU: a broken driver
		// stays out of the process.
		return health.Check{Verdict: health.Pass, Name: "device",
			Detail: detail + " (llm.device is cpu: the GPU backend is not loaded)"}
	}
	gpus, reason := llm.GPUs()
	if d.IsCPU() {
		if n := llm.DefaultThreads(); n == 1 {
			detail += ", 1 thread by default"
		} else {
			detail += fmt.Sprintf(", %d threads by default", n)
		}
		if len(gpus) > 0 {
			detail += " (llm.device auto leaves out drivers that run on the CPU; name one to use it)"
		}
	} else {
		detail += fmt.Sprintf(", %.1f GB free of %.1f", float64(d.MemoryFree)/1e9, float64(d.MemoryTotal)/1e9)
	}
	var others []string
	for _, g := range gpus {
		if g.Name != d.Name {
			others = append(others, g.Name+" ("+g.Description+")")
		}
	}
	if len(others) > 0 {
		detail += "; also here: " + strings.Join(others, ", ")
	}
	if reason != "" {
		detail += "; " + reason
	} else if lib := llm.GPULibrary(); lib != "" {
		detail += "; backend " + lib
	}
	return health.Check{Verdict: health.Pass, Name: "device", Detail: detail}
}

func checkOCR(cfg config.OCR) health.Check {
	if !cfg.Enabled {
		return health.Check{Verdict: health.Warn, Name: "OCR", Detail: "switched off (ocr.enabled): images and scanned pages are skipped",
			Fix: "set ocr.enabled to true"}
	}
	eng, err := ocr.New(ocr.Options{Languages: cfg.Languages})
	if err != nil {
		code := fault.ExtractNoOCR
		if strings.Contains(err.Error(), "no language data") {
			code = fault.ExtractOCRLang
		}
		return health.Check{Verdict: health.Warn, Name: "OCR", Detail: fault.FirstLine(err.Error()) + "; images and scanned pages are skipped",
			Fix: extract.OCRFix, Code: code}
	}
	defer eng.Close()
	return health.Check{Verdict: health.Pass, Name: "OCR", Detail: fmt.Sprintf("Tesseract %s with %s", eng.Version(), eng.Languages())}
}

// checkPoppler fails when a poppler tool is missing: PDFs are then read by
// the pure-Go reader, which loses text on some of them, and scanned pages
// are not drawn for OCR.
func checkPoppler(ctx context.Context) health.Check {
	version, missing := extract.Poppler(ctx)
	if len(missing) > 0 {
		var lost []string
		for _, t := range extract.PopplerTools {
			if slices.Contains(missing, t.Name) {
				lost = append(lost, t.Name+" ("+t.Use+")")
			}
		}
		return health.Check{Verdict: health.Fail, Name: "PDF reader",
			Detail: "poppler-utils is missing " + strings.Join(lost, ", ") + "; PDFs are read by the pure-Go fallback, which loses text on some",
			Fix:    extract.PopplerFix, Code: fault.ExtractNoPoppler}
	}
	return health.Check{Verdict: health.Pass, Name: "PDF reader", Detail: "poppler " + version}
}

func checkNetwork(n config.Network) health.Check {
	for _, a := range n.Allow {
		if err := netgate.CheckAllow(a); err != nil {
			return health.Check{Verdict: health.Fail, Name: "network", Detail: err.Error() + ": the network gate cannot start, so no knowledge base opens",
				Fix: "correct or remove the entry in network.allow (or CAIRN_NETWORK_ALLOW)", Code: fault.ConfigInvalid}
		}
	}
	info := netgate.Mode(n.Mode).Info()
	switch {
	case netgate.Mode(n.Mode) == netgate.Online:
		if n.Endpoint == "" {
			return health.Check{Verdict: health.Warn, Name: "network", Detail: "online, but network.endpoint is empty: answers stay local",
				Code: fault.NetNoRoute, Fix: "set network.endpoint, or network.mode back to offline"}
		}
		return health.Check{Verdict: health.Warn, Name: "network", Detail: "online: questions and passages may go to " + netgate.RedactURL(n.Endpoint),
			Fix: "set network.mode to offline to keep everything on this machine"}
	case !info.Leaves:
		return health.Check{Verdict: health.Pass, Name: "network", Detail: n.Mode + ": Cairn connects to nothing beyond this machine"}
	case !info.Unrestricted:
		return health.Check{Verdict: health.Pass, Name: "network", Detail: n.Mode + ": Cairn may connect to " + info.Reaches + " besides this machine, nothing else"}
	}
	return health.Check{Verdict: health.Warn, Name: "network", Detail: n.Mode + ": connections are not restricted (maintenance mode)",
		Fix: "set network.mode to offline (or online) when the maintenance is done"}
}

func checkLog(dirs config.Dirs, level string) health.Check {
	path := filepath.Join(dirs.State, logs.FileName)
	if level == "" {
		level = "info"
	}
	detail := fmt.Sprintf("%s (level %s)", path, level)
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return health.Check{Verdict: health.Warn, Name: "log", Detail: detail + ": " + err.Error(), Fix: "make " + dirs.State + " writable by you"}
	}
	if level == "debug" {
		return health.Check{Verdict: health.Warn, Name: "log", Detail: detail + ": document text and questions are logged",
			Fix: "set log.level to info when you are done debugging"}
	}
	return health.Check{Verdict: health.Pass, Name: "log", Detail: detail}
}
