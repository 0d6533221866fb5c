package llm

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

typedef void (*cairn_log_callback)(int level, const char *text, void *user_data);
extern void cairnLlamaLog(int level, char *text, void *user_data);

// ggml's backend registry, declared here with opaque pointers rather than
// through ggml-backend.h, whose include path lives in the ollama module;
// the symbols are linked from it (ml/backend/ggml/ggml/src).
size_t      ggml_backend_dev_count(void);
void *      ggml_backend_dev_get(size_t index);
const char *ggml_backend_dev_name(void *dev);
const char *ggml_backend_dev_description(void *dev);
int         ggml_backend_dev_type(void *dev);
void        ggml_backend_dev_memory(void *dev, size_t *free, size_t *total);
void *      ggml_backend_dev_backend_reg(void *dev);
const char *ggml_backend_reg_name(void *reg);
void *      ggml_backend_load(const char *path);

// cairn_open_base loads the libggml-base.so that the backend library links
// (its own copy of ggml's base, as in ollama's releases) and routes that
// copy's log into Cairn's, as llama_log_set does for the copy linked into
// the binary; the backend's lines go through it. It returns dlerror's text
// on failure, NULL on success.
static const char *cairn_open_base(const char *path) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		return dlerror();
	}
	void (*set)(cairn_log_callback, void *) = (void (*)(cairn_log_callback, void *))dlsym(h, "ggml_log_set");
	if (set != NULL) {
		set((cairn_log_callback)cairnLlamaLog, NULL);
	}
	return NULL;
}
*/
import "C"

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ollama/ollama/llama"
)

// ggml_backend_dev_type values.
const (
	devTypeCPU = iota
	devTypeGPU
	devTypeIGPU
	devTypeAccel
)

// Device is a processor llama.cpp can run a model's layers on: a GPU that
// a backend library found, or the CPU.
type Device struct {
	// Name is ggml's name for the device ("Vulkan0"), or "CPU".
	Name string
	// Description is the driver's name for it ("NVIDIA GeForce RTX 3060",
	// "llvmpipe (LLVM 15.0.6, 256 bits)").
	Description string
	// Backend is the library that drives it: "Vulkan", or "CPU".
	Backend string
	// Integrated is true for a GPU that shares the system's memory.
	Integrated bool
	// MemoryFree and MemoryTotal are the device's memory in bytes (0 for
	// the CPU).
	MemoryFree, MemoryTotal uint64
	// Software is true for a driver that runs on the CPU (Mesa's lavapipe,
	// called llvmpipe by its driver): a device for tests, never chosen by
	// DeviceAuto.
	Software bool

	// index is ggml_backend_dev_get's index plus one; 0 for the CPU (and
	// the zero Device).
	index int
}

// IsCPU reports whether d is the CPU itself (not a GPU driver on it).
func (d Device) IsCPU() bool { return d.index == 0 }

// String names the device for the status bar and `cairn doctor`:
// "GPU: NVIDIA GeForce RTX 3060 (Vulkan0)" or "CPU".
func (d Device) String() string {
	if d.IsCPU() {
		return "CPU"
	}
	kind := "GPU"
	if d.Integrated {
		kind = "integrated GPU"
	}
	if d.Software {
		kind = "software GPU"
	}
	return fmt.Sprintf("%s: %s (%s)", kind, d.Description, d.Name)
}

// The device settings that name no device.
const (
	// DeviceAuto offloads to the first GPU listed that is not a
	// software driver, else runs on the CPU.
	DeviceAuto = "auto"
	// DeviceCPU runs on the CPU even when a GPU is there.
	DeviceCPU = "cpu"
)

// cpuDevice is the CPU: llama.cpp's own, always there.
var cpuDevice = Device{Name: "CPU", Description: "CPU", Backend: "CPU"}

// GPU backend libraries: where they are looked for and what became of them.
const (
	// LibraryPathEnv names a folder holding libggml-vulkan.so, looked in
	// before the folders beside the executable (tests set it to bin/lib).
	LibraryPathEnv = "CAIRN_LIBRARY_PATH"
	vulkanLib      = "libggml-vulkan.so"
	ggmlBaseLib    = "libggml-base.so.0"
)

// gpu is the outcome of loading the GPU backend, once per process.
var gpu struct {
	once sync.Once
	// loaded is set once loadGPU is done: the fields below are then
	// written and may be read without going through once.
	loaded atomic.Bool
	// lib is the library loaded; "" when none was.
	lib string
	// reason says why no GPU is listed, in one line: no library, a library
	// that would not load, a driver that found no device.
	reason  string
	devices []Device
}

// LibraryDirs are the folders searched for the GPU backend library, in
// order: $CAIRN_LIBRARY_PATH, then lib/ beside the executable (bin/lib
// for bin/cairn, as `make` builds it) and ../lib/cairn (an installed
// /usr/local/bin/cairn with /usr/local/lib/cairn).
func LibraryDirs() []string {
	var dirs []string
	if d := os.Getenv(LibraryPathEnv); d != "" {
		dirs = append(dirs, filepath.SplitList(d)...)
	}
	if exe, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		dir := filepath.Dir(exe)
		dirs = append(dirs, filepath.Join(dir, "lib"), filepath.Join(dir, "..", "lib", "cairn"))
	}
	return dirs
}

// initGPU loads the CPU backend, then the GPU backend (loadGPU), once. It
// runs when a model asks for a device other than the CPU, or the devices
// are listed: with llm.device cpu the Vulkan library and driver are never
// loaded, which keeps a broken driver out of the process.
func initGPU() {
	initBackend()
	gpu.once.Do(func() {
		loadGPU()
		gpu.loaded.Store(true)
	})
}

// BackendFile is the GPU backend library a model asking for a GPU would
// load: libggml-vulkan.so in the first of LibraryDirs that holds one, or ""
// when none does (models then run on the CPU). It loads nothing, so
// `cairn version` can say whether the backend is in without starting a
// driver.
func BackendFile() string {
	for _, d := range LibraryDirs() {
		p := filepath.Join(d, vulkanLib)
		if _, err := os.Stat(p); err == nil {
			abs, _ := filepath.Abs(p)
			return filepath.Clean(abs)
		}
	}
	return ""
}

// BackendStatus says in a few words whether the GPU backend is in, for
// `cairn version` and `cairn doctor`: "Vulkan, /usr/lib/cairn/libggml-vulkan.so"
// or "none (models run on the CPU)".
func BackendStatus() string {
	if f := BackendFile(); f != "" {
		return "Vulkan, " + f
	}
	return "none (models run on the CPU)"
}

// loadGPU loads BackendFile and lists the devices it finds.
func loadGPU() {
	lib := BackendFile()
	if lib == "" {
		gpu.reason = fmt.Sprintf("no Vulkan backend: %s is in none of %s (`make` builds it into bin/lib where libvulkan-dev, glslc and cmake are installed)",
			vulkanLib, strings.Join(LibraryDirs(), ", "))
		return
	}
	takeLlamaErrors()
	cbase := C.CString(filepath.Join(filepath.Dir(lib), ggmlBaseLib))
	defer C.free(unsafe.Pointer(cbase))
	if msg := C.cairn_open_base(cbase); msg != nil {
		gpu.reason = "Vulkan backend not loaded: " + C.GoString(msg)
		return
	}
	clib := C.CString(lib)
	defer C.free(unsafe.Pointer(clib))
	if C.ggml_backend_load(clib) == nil {
		gpu.reason = "Vulkan backend not loaded: " + orUnknown(takeLlamaErrors())
		if strings.Contains(gpu.reason, "returned NULL") {
			gpu.reason = "Vulkan backend loaded, but Vulkan did not start (no Vulkan driver installed, such as mesa-vulkan-drivers or the GPU vendor's): " + lib
		}
		return
	}
	gpu.lib = lib
	for i := range int(C.ggml_backend_dev_count()) {
		dev := C.ggml_backend_dev_get(C.size_t(i))
		t := int(C.ggml_backend_dev_type(dev))
		if t != devTypeGPU && t != devTypeIGPU {
			continue
		}
		var free, total C.size_t
		C.ggml_backend_dev_memory(dev, &free, &total)
		d := Device{
			Name:        C.GoString(C.ggml_backend_dev_name(dev)),
			Description: C.GoString(C.ggml_backend_dev_description(dev)),
			Backend:     C.GoString(C.ggml_backend_reg_name(C.ggml_backend_dev_backend_reg(dev))),
			Integrated:  t == devTypeIGPU,
			MemoryFree:  uint64(free),
			MemoryTotal: uint64(total),
			index:       i + 1,
		}
		d.Software = softwareDriver(d.Description)
		gpu.devices = append(gpu.devices, d)
	}
	if len(gpu.devices) == 0 {
		gpu.reason = "Vulkan backend loaded, but Vulkan found no GPU (ggml leaves out drivers that run on the CPU, such as lavapipe, unless GGML_VK_VISIBLE_DEVICES lists them)"
	}
}

// softwareDriver reports whether a Vulkan device's name is that of a
// driver running on the CPU: Mesa's lavapipe reports itself as
// "llvmpipe (LLVM …)", Google's SwiftShader as "SwiftShader Device".
func softwareDriver(desc string) bool {
	d := strings.ToLower(desc)
	return strings.Contains(d, "llvmpipe") || strings.Contains(d, "lavapipe") || strings.Contains(d, "swiftshader")
}

// GPUs lists the GPU devices llama.cpp can offload to, loading the backend
// on first use; reason says, in one line, why the list is empty (or is "").
func GPUs() (devices []Device, reason string) {
	initGPU()
	return append([]Device(nil), gpu.devices...), gpu.reason
}

// GPULibrary is the GPU backend library loaded, or "".
func GPULibrary() string {
	initGPU()
	return gpu.lib
}

// SelectDevice resolves a device setting: DeviceAuto (or "") is the first
// GPU that is not a software driver, else the CPU; DeviceCPU the CPU;
// anything else the GPU whose name ("Vulkan0") or description ("llvmpipe
// (LLVM 15.0.6, 256 bits)") it matches, ignoring case, or, failing that,
// the first whose description contains it ("llvmpipe", "RTX 3060"). A
// setting that matches no device is an error listing those there are.
func SelectDevice(setting string) (Device, error) {
	s := strings.ToLower(strings.TrimSpace(setting))
	if s == DeviceCPU {
		initBackend()
		return cpuDevice, nil
	}
	initGPU()
	switch s {
	case "", DeviceAuto:
		for _, d := range gpu.devices {
			if !d.Software {
				return d, nil
			}
		}
		return cpuDevice, nil
	}
	for _, d := range gpu.devices {
		if strings.ToLower(d.Name) == s || strings.ToLower(d.Description) == s {
			return d, nil
		}
	}
	for _, d := range gpu.devices {
		if strings.Contains(strings.ToLower(d.Description), s) {
			return d, nil
		}
	}
	names := []string{DeviceAuto, DeviceCPU}
	for _, d := range gpu.devices {
		names = append(names, fmt.Sprintf("%s (%s)", d.Name, d.Description))
	}
	why := ""
	if gpu.reason != "" {
		why = "; " + gpu.reason
	}
	return cpuDevice, fmt.Errorf("device %q is not here: use %s%s", setting, strings.Join(names, ", "), why)
}

// cpuIndex is ggml's index of the CPU device; -1 if it has none (never: the
// CPU backend is linked in).
func cpuIndex() int {
	for i := range int(C.ggml_backend_dev_count()) {
		if int(C.ggml_backend_dev_type(C.ggml_backend_dev_get(C.size_t(i)))) == devTypeCPU {
			return i
		}
	}
	return -1
}

// modelParams are the llama.ModelParams that put a model on the device the
// setting names: every layer on a GPU, or none. On the CPU with a GPU
// backend loaded, the model's device list is the CPU alone, so that
// llama.cpp does not send large matrix products to the GPU either (its
// default with no layers offloaded).
func modelParams(setting string) (Device, llama.ModelParams, error) {
	mp := llama.ModelParams{UseMmap: true}
	d, err := SelectDevice(setting)
	if err != nil {
		return d, mp, err
	}
	switch {
	case !d.IsCPU():
		mp.Devices = []uint64{uint64(d.index - 1)}
		mp.NumGpuLayers = allLayers
	case gpu.loaded.Load() && len(gpu.devices) > 0:
		if i := cpuIndex(); i >= 0 {
			mp.Devices = []uint64{uint64(i)}
		}
	}
	return d, mp, nil
}

// How far a GPU's embedding may stray from the CPU's for the same text and
// model: the bound of `make test-vulkan` and of `cairn bench gpu`'s check.
// Measured on lavapipe (Mesa 22.3.6, LLVM 15) with all-MiniLM-L6-v2's shape
// in F16 over 100 chunks (3,068 tokens), 2026-11-28: worst cosine 1 - 1e-5,
// largest difference of one component 8.6e-4 (docs/performance.md, The
// GPU). The bounds leave a margin of ten in the cosine and about six in the
// component: a real GPU sums in another order, some in half precision.
const (
	DeviceMinCosine  = 0.9999
	DeviceMaxAbsDiff = 5e-3
)

// Agreement is how close one device's vectors came to another's for the
// same texts: the worst cosine (the vectors are unit length) and the
// largest difference of one component over all of them.
type Agreement struct {
	Vectors     int
	WorstCosine float64
	MaxAbsDiff  float64
}

// Agree compares got with want, vector by vector.
func Agree(want, got [][]float32) (Agreement, error) {
	if len(want) != len(got) {
		return Agreement{}, fmt.Errorf("%d vectors against %d", len(got), len(want))
	}
	a := Agreement{Vectors: len(want), WorstCosine: 1}
	for i := range want {
		if len(want[i]) != len(got[i]) {
			return a, fmt.Errorf("vector %d: %d components against %d", i, len(got[i]), len(want[i]))
		}
		var dot float64
		for j := range want[i] {
			dot += float64(want[i][j]) * float64(got[i][j])
			a.MaxAbsDiff = max(a.MaxAbsDiff, math.Abs(float64(want[i][j]-got[i][j])))
		}
		a.WorstCosine = min(a.WorstCosine, dot)
	}
	return a, nil
}

// Within reports whether a is inside DeviceMinCosine and DeviceMaxAbsDiff.
func (a Agreement) Within() bool {
	return a.WorstCosine >= DeviceMinCosine && a.MaxAbsDiff <= DeviceMaxAbsDiff
}

// allLayers offloads every layer and the output layer: llama.cpp caps it
// at the model's count.
const allLayers = 999
