# Quick start: `make run` sets everything up and runs the demo; `make test` runs every test.
# Both install the system dependencies (WebKitGTK's JavaScriptCore, GTK 4) when they are missing.

SWIFT       ?= swift
APT_PACKAGES := libjavascriptcoregtk-4.1-dev pkg-config libsqlite3-dev zlib1g-dev libgtk-4-dev libgtk-4-bin libadwaita-1-0 node-typescript
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup build run run-gtk gtk-fixture test test-times test-browser test-conformance test-crash fuzz tsan lint format bench-build bench bench-check bench-baseline release install install-files docs clean

## Install the apt packages that are missing (apt-get update once, then install).
setup:
	@missing=""; for package in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $$missing; \
	fi

build: setup
	$(SWIFT) build

DEMO := fixtures/demo

## Build and run the demo: the Swift example app, then `anna` on the recorded session.
run: build
	@echo "== anna-demo: a shop app built from AnnaKit, one result per line =="
	$(SWIFT) run --skip-build anna-demo
	@echo "== anna run: replaying $(DEMO)/session.ndjson ($$(wc -l < $(DEMO)/session.ndjson) lines) =="
	$(SWIFT) run --skip-build anna run --events $(DEMO)/session.ndjson --module $(DEMO)/module > .build/demo-results.ndjson
	@diff -q .build/demo-results.ndjson $(DEMO)/expected-results.ndjson > /dev/null \
	  && echo "$$(wc -l < .build/demo-results.ndjson) results, identical to $(DEMO)/expected-results.ndjson" \
	  || { echo "results differ from $(DEMO)/expected-results.ndjson"; exit 1; }
	@echo "== anna trace: checking the session against $(DEMO)/session.trace.json =="
	$(SWIFT) run --skip-build anna trace --events $(DEMO)/session.ndjson --module $(DEMO)/module --expect $(DEMO)/session.trace.json

## The same shop as a real GTK 4 app, headless (Broadway): its results, then `anna run` on the
## session it recorded, which must give the same results.
run-gtk: build
	@echo "== anna-gtk-demo: the shop as a GTK 4 app, captured by AnnaGtk, one result per line =="
	@rm -rf .build/gtk-session.screens
	.ci/with-broadway $(SWIFT) run --skip-build anna-gtk-demo --record .build/gtk-session.ndjson --screenshots | tee .build/gtk-results.ndjson
	@echo "== anna run: replaying the recorded session ($$(wc -l < .build/gtk-session.ndjson) lines) =="
	$(SWIFT) run --skip-build anna run --events .build/gtk-session.ndjson --module $(DEMO)/module > .build/gtk-replay.ndjson
	@diff -q .build/gtk-replay.ndjson .build/gtk-results.ndjson > /dev/null \
	  && echo "$$(wc -l < .build/gtk-replay.ndjson) results, identical to the app's own" \
	  || { echo "the replay's results differ from the app's"; exit 1; }
	@echo "== anna report: the session with its screenshots, one HTML file =="
	$(SWIFT) run --skip-build anna report --events .build/gtk-session.ndjson --module $(DEMO)/module -o .build/gtk-report.html

## Records the GTK demo's session with its screenshots into fixtures/gtk (the report's tests and
## the README's picture use them).
gtk-fixture: build
	@rm -rf fixtures/gtk/session.screens
	@mkdir -p fixtures/gtk
	.ci/with-broadway $(SWIFT) run --skip-build anna-gtk-demo --record fixtures/gtk/session.ndjson --screenshots > /dev/null

## Every test, after the lint (so CI checks the formatting too), each step timed into
## $(TEST_RESULTS)/phases.tsv and each test's time into its xUnit files (`make test-times` prints
## the slowest): the debug build and `swift test`; then the one release build of `anna`
## (`make release`), which the install test, the README's package as a consumer (both
## ANNA_TEST_INSTALL=1, on their own: beside the other tests their builds starved the
## time-limited ones on 2 cores), the vendors' conformance and the browser tests use; last, the
## documentation (`make docs`). The GTK tests (GTK apps and their display processes) run in a
## step of their own too: beside the others they starved the inspector's time-limited tests.
TEST_RESULTS := .build/test-results
TIMED        := .ci/timed $(TEST_RESULTS)/phases.tsv
test: setup lint
	@rm -rf $(TEST_RESULTS) && mkdir -p $(TEST_RESULTS)
	$(TIMED) "debug build" $(SWIFT) build --build-tests
	$(TIMED) "swift test" $(SWIFT) test --skip-build --skip AnnaGtkTests --xunit-output $(TEST_RESULTS)/tests.xml
	$(TIMED) "GTK tests" $(SWIFT) test --skip-build --filter AnnaGtkTests --xunit-output $(TEST_RESULTS)/gtk.xml
	$(TIMED) "release build" $(MAKE) --no-print-directory release
	$(TIMED) "install and consumer tests" env ANNA_TEST_INSTALL=1 \
	  $(SWIFT) test --skip-build --filter 'InstallTests|ConsumerPackageTests' --xunit-output $(TEST_RESULTS)/install.xml
	$(TIMED) "conformance tests" $(MAKE) --no-print-directory test-conformance ANNA_BIN=$(CURDIR)/.build/release/anna
	$(TIMED) "browser tests" $(MAKE) --no-print-directory test-browser ANNA_BIN=$(CURDIR)/.build/release/anna
	$(TIMED) "docs" $(MAKE) --no-print-directory docs
	@.ci/test-times 0

## How long the tests take: the steps of the last `make test`, then the 15 slowest suites,
## each run on its own (in the parallel run a test's time includes its wait for a thread).
test-times: setup
	$(SWIFT) build --build-tests
	@.ci/test-times --measure 15

BROWSER_APT_PACKAGES := chromium chromium-driver python3-venv
BROWSER_VENV := .build/browser-venv

## The inspector page and the session report in headless Chromium (Debian's), driven by Selenium
## (from PyPI, in a venv under .build); installs what is missing. Screenshots: .build/browser/.
## ANNA_BIN=PATH tests that `anna` (`make test` passes the release one) instead of a debug build.
test-browser: setup
	@missing=""; for package in $(BROWSER_APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $$missing; \
	fi
	@[ -x $(BROWSER_VENV)/bin/python ] || python3 -m venv $(BROWSER_VENV)
	@$(BROWSER_VENV)/bin/python -c 'import selenium' 2>/dev/null || $(BROWSER_VENV)/bin/pip install --quiet 'selenium>=4.20'
	@[ -n "$(ANNA_BIN)" ] || $(SWIFT) build --product anna
	ANNA="$${ANNA_BIN:-$$($(SWIFT) build --show-bin-path)/anna}" $(BROWSER_VENV)/bin/python tests/browser/test_inspector.py

CONFORMANCE_VENV := .build/conformance-venv
CONFORMANCE_SDKS := segment-analytics-python==2.4.0 posthog==7.91.1 amplitude-analytics==1.3.0

## Segment's, PostHog's and Amplitude's official Python SDKs (from PyPI, in a venv under .build)
## and `anna run --format …` send the same events to loopback receivers; the requests must
## match key for key and type for type (tests/conformance/README.md).
test-conformance: setup
	@dpkg-query -W -f='$${Status}' python3-venv 2>/dev/null | grep -q "install ok installed" || { 	  $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends python3-venv; }
	@[ -x $(CONFORMANCE_VENV)/bin/python ] || python3 -m venv $(CONFORMANCE_VENV)
	@$(CONFORMANCE_VENV)/bin/python -c 'import segment.analytics, posthog, amplitude' 2>/dev/null 	  || $(CONFORMANCE_VENV)/bin/pip install --quiet $(CONFORMANCE_SDKS)
	@[ -n "$(ANNA_BIN)" ] || $(SWIFT) build --product anna
	ANNA="$${ANNA_BIN:-$$($(SWIFT) build --show-bin-path)/anna}" $(CONFORMANCE_VENV)/bin/python tests/conformance/test_conformance.py

## The outbox's kill and corruption tests alone (they also run in `make test`): children
## SIGKILLed ANNA_KILL_ROUNDS times while appending and while uploading, ANNA_CORRUPTION_FILES
## damaged files (docs/outbox.md). `make test-crash ANNA_KILL_ROUNDS=1000` for a longer run.
ANNA_KILL_ROUNDS ?= 200
ANNA_CORRUPTION_FILES ?= 1000
test-crash: setup
	ANNA_KILL_ROUNDS=$(ANNA_KILL_ROUNDS) ANNA_CORRUPTION_FILES=$(ANNA_CORRUPTION_FILES) \
	  $(SWIFT) test --filter 'OutboxKillTests|OutboxCorruptionTests'

## The fuzz suites (streams, the bridge) with many cases (ANNA_FUZZ_CASES, 20,000 by default)
## from a random seed, printed first, and the hostile-script corpus; ANNA_FUZZ_SEED=N make fuzz
## repeats a run (docs/fuzzing.md).
ANNA_FUZZ_CASES ?= 20000
fuzz: setup
	@seed="$${ANNA_FUZZ_SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"; \
	echo "fuzz: ANNA_FUZZ_SEED=$$seed ANNA_FUZZ_CASES=$(ANNA_FUZZ_CASES) (the same two repeat this run: ANNA_FUZZ_SEED=$$seed ANNA_FUZZ_CASES=$(ANNA_FUZZ_CASES) make fuzz)"; \
	ANNA_FUZZ_SEED=$$seed ANNA_FUZZ_CASES=$(ANNA_FUZZ_CASES) $(SWIFT) test --filter "StreamFuzz|BridgeFuzz|HostileCorpus"

## The concurrency tests (the manager's, the analyzers', the kit's, 16 threads on one manager)
## under ThreadSanitizer, in a build of their own (.build/tsan; slow the first time).
## -DANNA_TSAN makes `Locked` a pthread mutex, which TSan sees; .tsan-suppressions covers
## JavaScriptCore only. Polling traps let the time limit stop a script without a signal.
## Any report fails the run. Every test but the CLI's: `make tsan TSAN_TESTS='AnnaTests|AnnaKitTests|CoreJSTests'`.
TSAN_TESTS ?= AnnaTests\.(ManagerTests|ManagerStressTests|AuthorLoopTests)|AnnaKitTests\.
tsan: setup
	JSC_usePollingTraps=true TSAN_OPTIONS="suppressions=$(CURDIR)/.tsan-suppressions $$TSAN_OPTIONS" \
	  $(SWIFT) test --sanitize=thread -Xswiftc -DANNA_TSAN --scratch-path .build/tsan --filter '$(TSAN_TESTS)'

SWIFT_FORMAT_PATHS := Package.swift Sources Tests Benchmarks

## Checks the Swift sources against .swift-format (swift-format ships with the toolchain).
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(SWIFT_FORMAT_PATHS)

## Formats the Swift sources in place.
format:
	$(SWIFT) format format --in-place --recursive --parallel $(SWIFT_FORMAT_PATHS)

BENCH     := .build/release/anna-bench
GTK_BENCH := .ci/with-broadway .build/release/anna-gtk-bench
BENCH_OUT := .build/bench.json

## The release build of the benchmarks that the bench targets run.
bench-build: setup
	$(SWIFT) build -c release --product anna-bench && $(SWIFT) build -c release --product anna \
	  && $(SWIFT) build -c release --product anna-gtk-bench

## The benchmark at full sizes (a few minutes): JSON lines on stdout and in .build/bench.json, a table on stderr.
## W1 also runs on the protocol-only core and on the do-nothing module (the host path's floor).
bench: bench-build
	$(BENCH) --profile full --module fixtures/protocol-module --module fixtures/host-floor-module --json-out $(BENCH_OUT)
	$(GTK_BENCH) --json-out .build/bench-gtk.json

## The regression guard (a few minutes): quick sizes against Benchmarks/baseline.json, and the GTK
## capture against Benchmarks/gtk-baseline.json; fails when a figure is >30% worse.
bench-check: bench-build
	$(BENCH) --profile quick --json-out .build/bench-quick.json
	$(GTK_BENCH) --rounds 5 --json-out .build/bench-gtk-quick.json
	$(BENCH) compare --baseline Benchmarks/baseline.json --current .build/bench-quick.json
	$(BENCH) compare --baseline Benchmarks/gtk-baseline.json --current .build/bench-gtk-quick.json

## Refreshes the committed baseline after an intended change (commit it with the change).
bench-baseline: bench-build
	$(BENCH) --profile quick --json-out Benchmarks/baseline.json
	$(GTK_BENCH) --rounds 5 --json-out Benchmarks/gtk-baseline.json

DOC_TARGETS := Anna AnnaKit AnnaOutbox AnnaInspector
## The libraries' DocC documentation (swift-docc-plugin), one archive in
## .build/plugins/Swift-DocC/outputs; fails on a missing or broken symbol link or an undocumented
## parameter (.build/docs.log).
## It builds with symbol-graph flags, so the next debug build recompiles: `make test` runs it last.
docs: setup
	@mkdir -p .build
	$(SWIFT) package generate-documentation $(DOC_TARGETS:%=--target %) --enable-experimental-combined-documentation \
	  > .build/docs.log 2>&1 || { tail -30 .build/docs.log; exit 1; }
	@! grep -E -A2 "^warning: .*(doesn't exist at|is ambiguous at|is missing documentation)" .build/docs.log \
	  || { echo "broken symbol links or undocumented parameters above (the whole log: .build/docs.log)"; exit 1; }
	@echo "documentation: $$(ls -d .build/plugins/Swift-DocC/outputs/*.doccarchive)"

PREFIX ?= /usr/local
## The resource bundles `anna` reads at run time (the JavaScript core; CoreJS's bootstrap; the inspector's page).
ANNA_BUNDLES := Anna_Anna.resources Anna_CoreJS.resources Anna_AnnaInspector.resources

## The release `anna` with Swift's runtime linked in: what `make install` installs.
release: setup
	$(SWIFT) build -c release --product anna --static-swift-stdlib

## Builds the release `anna` and installs it to PREFIX/bin with the resource bundles SwiftPM
## looks for beside the binary (`make install PREFIX=~/.local`), and the shell completions
## (bash, zsh, fish) under PREFIX/share, where those shells look.
install: release install-files

## The installing half of `make install`, from the release build already made (`make release`)
## in RELEASE_BIN (default: where SwiftPM puts it).
RELEASE_BIN ?= $(shell $(SWIFT) build -c release --show-bin-path)
install-files:
	@bin="$(RELEASE_BIN)"; \
	[ -x "$$bin/anna" ] || { echo "no release build of anna in $$bin: run make release (or make install) first" >&2; exit 1; }; \
	install -d "$(DESTDIR)$(PREFIX)/bin" && install -m 755 "$$bin/anna" "$(DESTDIR)$(PREFIX)/bin/anna" && \
	for bundle in $(ANNA_BUNDLES); do \
	  rm -rf "$(DESTDIR)$(PREFIX)/bin/$$bundle" && cp -R "$$bin/$$bundle" "$(DESTDIR)$(PREFIX)/bin/$$bundle" || exit 1; \
	done; \
	echo "installed $(DESTDIR)$(PREFIX)/bin/anna and $(ANNA_BUNDLES) beside it"; \
	share="$(DESTDIR)$(PREFIX)/share"; \
	install -d "$$share/bash-completion/completions" "$$share/zsh/site-functions" "$$share/fish/vendor_completions.d" && \
	"$$bin/anna" --generate-completion-script bash > "$$share/bash-completion/completions/anna" && \
	"$$bin/anna" --generate-completion-script zsh > "$$share/zsh/site-functions/_anna" && \
	"$$bin/anna" --generate-completion-script fish > "$$share/fish/vendor_completions.d/anna.fish" && \
	echo "installed completions for bash, zsh and fish under $$share"

clean:
	rm -rf .build
