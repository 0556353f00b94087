# The two commands a fresh machine needs (both install what is missing first):
#   make run    build in Release and simulate ResNet-18 on the default hardware
#   make test   build and run the whole test suite with ctest
#   make python build, then make `import npusim` work in /usr/bin/python3 (docs/python.md)
BUILD ?= build
JOBS ?= 2

.PHONY: all deps build run test python bench clean

all: build

deps:
	@tools/install-deps

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/npusim run

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

python: build
	@tools/install-python $(BUILD)

bench: build
	tools/bench

clean:
	rm -rf $(BUILD)
