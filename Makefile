# Quick start: `make run` sets everything up and runs the demo; `make test` runs every test.
# Both install the one system dependency (WebKitGTK's JavaScriptCore) when it is missing.

SWIFT       ?= swift
APT_PACKAGES := libjavascriptcoregtk-4.1-dev pkg-config
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup build run test clean

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

test: setup
	$(SWIFT) test

clean:
	rm -rf .build
