# mpcc - ahead-of-time TFLite -> C compiler.
# `make` builds build/mpcc; `make test` runs everything; `make demo` runs the sample.

CC      ?= cc
PYTHON  ?= python3
BUILD   ?= build
VENV    ?= .venv
PREFIX  ?= /usr/local
VERSION := 0.1.0

WARN    := -Wall -Wextra -Werror
INC     := -Iir -Icompiler -Icompiler/ops -Icompiler/passes -Icodegen -Iruntime
CFLAGS  ?= -O2 -g
ALL_CFLAGS := -std=c11 $(WARN) $(INC) -DMPCC_VERSION='"$(VERSION)"' $(CFLAGS)
SAN_FLAGS  := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Sources are found by wildcard: adding a file needs no registration.
LIB_SRC := $(sort $(wildcard ir/*.c compiler/*.c compiler/ops/*.c compiler/passes/*.c codegen/*.c runtime/*.c runtime/kernels/*.c))
CLI_SRC := compiler/main.c compiler/cli_precision.c
LIB_SRC := $(filter-out $(CLI_SRC),$(LIB_SRC))
# runtime/cuda's device headers, embedded into mpcc for `--target cuda --jit` (tools/embed_cuda.sh).
CUDA_HDRS := runtime/cuda/mpcc_cuda.cuh runtime/cuda/mpcc_cuda_args.h runtime/cuda/mpcc_cuda_ops.cuh \
             runtime/cuda/mpcc_cuda_gemm.cuh runtime/cuda/mpcc_cuda_attention.cuh \
             runtime/cuda/mpcc_cuda_int8.cuh runtime/cuda/mpcc_cuda_args_s16.h runtime/cuda/mpcc_cuda_s16.cuh \
             runtime/cuda/mpcc_cuda_layout.cuh runtime/cuda/mpcc_cuda_args_misc.h runtime/cuda/mpcc_cuda_misc.cuh \
             runtime/cuda/mpcc_cuda_args_rnn.h runtime/cuda/mpcc_cuda_rnn.cuh \
             runtime/cuda/mpcc_cuda_args_hybrid.h runtime/cuda/mpcc_cuda_hybrid.cuh
GEN_SRC := $(BUILD)/gen/cuda_headers.c
LIB_SRC += $(GEN_SRC)
HDRS    := $(wildcard ir/*.h ir/*.def compiler/*.h compiler/ops/*.h compiler/ops/*.def codegen/*.h runtime/*.h runtime/kernels/*.h)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))

.PHONY: all mpcc asan test test-full demo models models-llm models-torch models-hf models-onnx models-llm-100m bench bench-real bench-llm profile fuzz install clean venv unit regen-golden scale \
        mcu-toolchain demo-mcu bench-mcu a64-toolchain bench-arm64

all: $(BUILD)/mpcc

$(GEN_SRC): $(CUDA_HDRS) tools/embed_cuda.sh
	@mkdir -p $(BUILD)/gen
	@sh tools/embed_cuda.sh $(CUDA_HDRS) > $@.tmp && mv $@.tmp $@

# Objects, one per source, built once per flavour (plain and ASan+UBSan) and shared by mpcc and the unit
# tests; `make -j` builds them in parallel. Every object depends on every header (coarse, never stale).
LIB_OBJ      := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRC))
CLI_OBJ      := $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRC))
ASAN_LIB_OBJ := $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(LIB_SRC))
ASAN_CLI_OBJ := $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(CLI_SRC))
$(BUILD)/obj/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	@$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(BUILD)/asan/obj/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	@$(CC) -std=c11 $(WARN) $(INC) -DMPCC_VERSION='"$(VERSION)"' $(SAN_FLAGS) -c -o $@ $<

$(BUILD)/mpcc: $(LIB_OBJ) $(CLI_OBJ)
	@echo "CC $@"
	@$(CC) $(CFLAGS) -o $@ $^ -lm -ldl

# Sanitizer build of the compiler (used by the tests).
$(BUILD)/asan/mpcc: $(ASAN_LIB_OBJ) $(ASAN_CLI_OBJ)
	@echo "CC $@ (ASan+UBSan)"
	@$(CC) $(SAN_FLAGS) -o $@ $^ -lm -ldl
asan: $(BUILD)/asan/mpcc

# C unit tests: each tests/unit/test_X.c is linked against the library, under ASan+UBSan.
$(BUILD)/unit/%: tests/unit/%.c $(ASAN_LIB_OBJ) $(HDRS) $(wildcard tests/unit/*.h)
	@mkdir -p $(BUILD)/unit
	@echo "CC $@"
	@$(CC) -std=c11 $(WARN) $(INC) -Itests/unit -DMPCC_VERSION='"$(VERSION)"' $(SAN_FLAGS) -o $@ $< $(ASAN_LIB_OBJ) -lm
unit: $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC))

# The run-time NVRTC JIT is an app-side loader, not part of the library: its test links only it (and -ldl).
JIT_SRC := runtime/cuda/mpcc_jit.c
$(BUILD)/unit/test_jit: tests/unit/test_jit.c $(JIT_SRC) runtime/cuda/mpcc_jit.h Makefile
	@mkdir -p $(BUILD)/unit
	@echo "CC $@"
	@$(CC) -std=c11 $(WARN) -pedantic -Iruntime/cuda $(SAN_FLAGS) -o $@ $< $(JIT_SRC) -ldl

# Project venv with the test oracle (TFLite interpreter) and pytest.
$(VENV)/.stamp: tests/requirements.txt
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r tests/requirements.txt
	@touch $@
venv: $(VENV)/.stamp

# Model zoo: regenerate tests/models/*.tflite and samples/digits/ (TensorFlow only here, never in
# the tests). MODELS_BIG=1 also writes the large on-demand models into $(BUILD)/models/.
models: venv
	$(VENV)/bin/pip install -q --disable-pip-version-check -r tools/models/requirements.txt
	$(VENV)/bin/python tools/models/make_all.py $(if $(filter 1,$(MODELS_BIG)),--big)

# The litert-torch decoder (tools/models/llm.py): torch is a large install, so it has its own venv.
models-llm:
	test -x .venv-llm/bin/python || python3 -m venv .venv-llm
	.venv-llm/bin/pip install -q --disable-pip-version-check -r tools/models/requirements-llm.txt
	.venv-llm/bin/python tools/models/llm.py --int8 --int4

# Models from PyTorch through litert-torch (tools/models/torch_export.py, .venv-llm) and through
# ONNX and onnx2tf (tools/models/onnx_export.py: torch.onnx.export in .venv-llm, onnx2tf in .venv-onnx,
# whose pinned TensorFlow 2.19 cannot share .venv-llm). Minutes of CPU each (docs/llm-exports.md).
models-torch:
	test -x .venv-llm/bin/python || python3 -m venv .venv-llm
	.venv-llm/bin/pip install -q --disable-pip-version-check -r tools/models/requirements-llm.txt
	.venv-llm/bin/python tools/models/torch_export.py

# A tiny random transformers Llama through litert-torch's Hugging Face export path (tools/models/hf_export.py).
models-hf:
	test -x .venv-llm/bin/python || python3 -m venv .venv-llm
	.venv-llm/bin/pip install -q --disable-pip-version-check -r tools/models/requirements-llm.txt
	.venv-llm/bin/python tools/models/hf_export.py

models-onnx:
	test -x .venv-llm/bin/python || python3 -m venv .venv-llm
	.venv-llm/bin/pip install -q --disable-pip-version-check -r tools/models/requirements-llm.txt
	test -x .venv-onnx/bin/python || python3 -m venv .venv-onnx
	.venv-onnx/bin/pip install -q --disable-pip-version-check -r tools/models/requirements-onnx.txt
	.venv-llm/bin/python tools/models/onnx_export.py --export
	.venv-onnx/bin/python tools/models/onnx_export.py --convert

# The ~100M-parameter decoder of `make bench-llm` (build/models/, never committed; minutes, a few GB).
models-llm-100m:
	test -x .venv-llm/bin/python || python3 -m venv .venv-llm
	.venv-llm/bin/pip install -q --disable-pip-version-check -r tools/models/requirements-llm.txt
	.venv-llm/bin/python tools/models/llm.py --size 100m --int8 --int4

# The tests run in one pytest-xdist worker per core (TEST_JOBS=1: in one process); the 25 slowest are listed.
TEST_JOBS  ?= $(shell nproc 2>/dev/null || echo 1)
XDIST_ARGS := $(if $(filter-out 0 1,$(TEST_JOBS)),-n $(TEST_JOBS) --dist loadgroup) --durations=25
test: venv mcu-toolchain a64-toolchain
	@$(MAKE) -s -j$(TEST_JOBS) $(BUILD)/mpcc $(BUILD)/asan/mpcc unit
	$(VENV)/bin/python -m pytest -q tests $(XDIST_ARGS) $(PYTEST_ARGS)

# Everything `make test` runs plus the heavy suites marked `full` (every model on every emulated target).
test-full: venv mcu-toolchain a64-toolchain
	@$(MAKE) -s -j$(TEST_JOBS) $(BUILD)/mpcc $(BUILD)/asan/mpcc unit
	MPCC_FULL=1 $(VENV)/bin/python -m pytest -q tests $(XDIST_ARGS) $(PYTEST_ARGS)

# Scale measurements (minutes; not part of `make test`): compile time and peak memory on graphs of
# 2k..250k ops, hostile sizes, and BERT-base f32 end to end if `make models MODELS_BIG=1` made it.
scale: $(BUILD)/mpcc venv
	$(VENV)/bin/python tests/scale/measure.py

install: $(BUILD)/mpcc
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/mpcc/runtime $(DESTDIR)$(PREFIX)/share/mpcc/cmake
	install -m 755 $(BUILD)/mpcc $(DESTDIR)$(PREFIX)/bin/mpcc
	cp -R runtime/. $(DESTDIR)$(PREFIX)/share/mpcc/runtime/
	install -m 644 cmake/mpcc.cmake cmake/mpccConfig.cmake $(DESTDIR)$(PREFIX)/share/mpcc/cmake/

clean:
	rm -rf $(BUILD)

# ---- demo: compile the trained digits CNN to C, build it, classify the held-out digits.
DEMO_DIR := $(BUILD)/demo
RT_SRC   := $(sort $(wildcard runtime/*.c runtime/kernels/*.c))
RT_CM_SRC := $(sort $(wildcard runtime/cortex_m/*.c runtime/cortex_m/helium/*.c))
GEN_CFLAGS := -std=c99 -Wall -Wextra -Werror -pedantic -O2
demo: $(BUILD)/mpcc
	@mkdir -p $(DEMO_DIR)/f32 $(DEMO_DIR)/int8
	$(BUILD)/mpcc samples/digits/digits_f32.tflite -o $(DEMO_DIR)/f32/digits.c --name digits
	$(CC) $(GEN_CFLAGS) -I$(DEMO_DIR)/f32 -Iruntime -o $(DEMO_DIR)/digits-f32 samples/demo.c $(DEMO_DIR)/f32/digits.c $(RT_SRC) -lm
	$(BUILD)/mpcc samples/digits/digits_int8.tflite -o $(DEMO_DIR)/int8/digits.c --name digits
	$(CC) $(GEN_CFLAGS) -I$(DEMO_DIR)/int8 -Iruntime -o $(DEMO_DIR)/digits-int8 samples/demo.c $(DEMO_DIR)/int8/digits.c $(RT_SRC) -lm
	@echo "== float32 model"
	@$(DEMO_DIR)/digits-f32 samples/digits
	@echo "== int8 model"
	@$(DEMO_DIR)/digits-int8 samples/digits

# ---- Fuzzing (tests/fuzz/): libFuzzer targets over the reader, importer and whole pipeline. ----
# `make fuzz FUZZ_SECONDS=N` runs each target for N seconds (default 600) on a corpus seeded from
# the model zoo and ../shared/models (copied into $(BUILD)/fuzz/corpus, never committed), then
# copies every crash/leak/timeout/oom artifact into tests/fuzz/regress/<target>/.
# `make fuzz-smoke` is the same with FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) (default 30).
# MPCC_SEED=S passes -seed=S to libFuzzer (the same mutation sequence again).
# `make fuzz-build` only builds. If clang's libFuzzer runtime is missing, it is installed with apt.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 30
FUZZ_TARGETS := fuzz_fb fuzz_import fuzz_compile
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_FLAGS   := -std=c11 $(WARN) $(INC) -DMPCC_VERSION='"$(VERSION)"' -O1 -g -fno-omit-frame-pointer \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_RUN_FLAGS ?= -rss_limit_mb=2048 -max_len=4194304 -timeout=30
FUZZ_SEEDS    = $(wildcard tests/models/*.tflite samples/digits/*.tflite) \
                $(shell find ../shared/models -name '*.tflite' 2>/dev/null)

.PHONY: fuzz fuzz-smoke fuzz-build fuzz-toolchain
fuzz-toolchain:
	@mkdir -p $(FUZZ_DIR)
	@echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
	  > $(FUZZ_DIR)/probe.c
	@$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_DIR)/probe.c -o $(FUZZ_DIR)/probe 2>/dev/null || \
	  { echo "installing clang's libFuzzer runtime"; \
	    apt-get install -y libclang-rt-$$($(FUZZ_CC) -dumpversion | cut -d. -f1)-dev || apt-get install -y libclang-rt-dev; }
	@rm -f $(FUZZ_DIR)/probe $(FUZZ_DIR)/probe.c

# Library objects are built once (instrumented) and shared by the targets; fuzz_fb needs only the reader.
FUZZ_OBJ := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(LIB_SRC))
.SECONDARY: $(FUZZ_OBJ)
$(FUZZ_DIR)/obj/%.o: %.c $(HDRS) | fuzz-toolchain
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(subst fuzzer,fuzzer-no-link,$(FUZZ_FLAGS)) -c -o $@ $<
$(FUZZ_DIR)/fuzz_fb: tests/fuzz/fuzz_fb.c $(FUZZ_DIR)/obj/compiler/fb.o $(FUZZ_DIR)/obj/ir/diag.o $(FUZZ_DIR)/obj/ir/text.o
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^ -lm

fuzz-build: $(addprefix $(FUZZ_DIR)/,$(FUZZ_TARGETS))

# Fork mode keeps fuzzing after a crash, so one run collects every artifact. Known bugs in op files
# (tests/fuzz/known_op_bugs.txt) keep their ops out of the interpreter, so they are not found again.
FUZZ_SKIP_OPS = $(shell awk -F'\t' '!/^\#/ && NF >= 3 { print $$3 }' tests/fuzz/known_op_bugs.txt | sort -u | paste -sd, -)
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  rm -rf $(FUZZ_DIR)/artifacts/$$t; mkdir -p $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/artifacts/$$t tests/fuzz/regress/$$t; \
	  for s in $(FUZZ_SEEDS); do cp -f $$s $(FUZZ_DIR)/corpus/$$t/seed_$$(echo $$s | tr '/.' '__'); done; \
	  echo "== $$t: $(FUZZ_SECONDS) s (log: $(FUZZ_DIR)/$$t.log)"; \
	  MPCC_FUZZ_SKIP_INTERP_OPS=$(FUZZ_SKIP_OPS) $(FUZZ_DIR)/$$t $(FUZZ_RUN_FLAGS) $(if $(MPCC_SEED),-seed=$(MPCC_SEED)) -fork=1 -ignore_crashes=1 \
	    -ignore_timeouts=1 -ignore_ooms=1 -max_total_time=$(FUZZ_SECONDS) \
	    -artifact_prefix=$(FUZZ_DIR)/artifacts/$$t/ $(FUZZ_DIR)/corpus/$$t > $(FUZZ_DIR)/$$t.log 2>&1 \
	    || echo "$$t: libFuzzer reported failures (see the log)"; \
	  grep -E '^#[0-9]+' $(FUZZ_DIR)/$$t.log | tail -1; \
	  for a in $(FUZZ_DIR)/artifacts/$$t/*; do [ -f "$$a" ] || continue; cp -f "$$a" tests/fuzz/regress/$$t/; \
	    echo "$$t: NEW ARTIFACT $$a -> tests/fuzz/regress/$$t/ (reproduce: $(FUZZ_DIR)/$$t $$a)"; done; \
	done

fuzz-smoke:
	$(MAKE) fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)
# ---- end fuzzing ----

# ---- bench: speed of the generated C vs TFLite + XNNPACK, plus the fp32 peak and GEMM
# microbenchmarks (tools/bench/README.md). Not part of `make test`. Options go in BENCH_ARGS, e.g.
# `make bench BENCH_ARGS="--models resnet,bert --rounds 15 --threads 2"`.
BENCH_ARGS ?=
bench:
	@$(MAKE) --no-print-directory -s $(BUILD)/mpcc venv
	@$(VENV)/bin/python tools/bench/bench.py $(BENCH_ARGS)

# ---- bench-real: the same comparison on real third-party models from PyPI wheels (MediaPipe 0.10.14's face,
# iris, hands, palm, pose and selfie segmentation models; openWakeWord 0.5.1's wake-word embedding CNN and
# classifiers; pymicro-wakeword 2.5.0's four streaming microWakeWord detectors), downloaded into build/real/ by
# tools/bench/real_models.py. BENCH_ARGS as for `make bench`.
bench-real:
	@$(MAKE) --no-print-directory -s $(BUILD)/mpcc venv
	@$(VENV)/bin/python tools/bench/bench.py --no-gemm --no-precision --only-extra \
		--extra "$$($(VENV)/bin/python tools/bench/real_models.py)" $(BENCH_ARGS)

# ---- bench-llm: prefill ms and decode tokens/s of the litert-torch decoders (tiny, and the ~100M one
# when `make models-llm-100m` made it), mpcc vs TFLite + XNNPACK at 1 and 2 threads (tools/bench/llm_bench.py;
# BENCH_LLM_ARGS="--threads 1" for one).
BENCH_LLM_ARGS ?=
bench-llm:
	@$(MAKE) --no-print-directory -s $(BUILD)/mpcc venv
	@$(VENV)/bin/python tools/bench/llm_bench.py $(BENCH_LLM_ARGS)

# ---- profile: per-op times of one model's generated C (mpcc --profile), sorted, with each op's share,
# like TFLite's benchmark_model --enable_op_profiling. `make profile MODEL=m.tflite PROFILE_ARGS="--write
# prof.tsv --mpcc-flags '-O2'"`; then `mpcc report m.tflite --profile-data prof.tsv -o report.html`.
PROFILE_ARGS ?=
profile:
	@test -n "$(MODEL)" || { echo "usage: make profile MODEL=path/to/model.tflite [PROFILE_ARGS=...]"; exit 1; }
	@$(MAKE) --no-print-directory -s $(BUILD)/mpcc venv
	@$(VENV)/bin/python tools/bench/profile.py $(MODEL) $(PROFILE_ARGS)
# ---- end bench ----

# ---- AArch64 (docs/arm64.md): aarch64-linux-gnu-gcc and qemu-aarch64 (user mode), installed with apt
# if missing; tests/test_arm64.py runs a model set with and without the dot product under QEMU.
a64-toolchain:
	@sh tools/arm64/install.sh

# `make bench-arm64`: instructions per inference under qemu-aarch64 (QEMU TCG plugin), mpcc and
# TFLite + XNNPACK (an arm64 CPython and the ai-edge-litert wheel, installed into build/arm64/peer by
# tools/arm64/peer_install.sh), with and without the dot product;
# BENCH_A64_ARGS="--models person_detect,... --targets dotprod --no-peer --profile 10".
BENCH_A64_ARGS ?=
bench-arm64: $(BUILD)/mpcc venv a64-toolchain
	@$(VENV)/bin/python tools/arm64/bench_a64.py $(BENCH_A64_ARGS)

# ---- Cortex-M (docs/cortex-m.md): arm-none-eabi-gcc + newlib and qemu-system-arm, installed with
# apt if missing; tests/test_cortex_m.py runs the model set bare-metal on four emulated boards.
mcu-toolchain:
	@sh tools/cortex_m/install.sh

# `make bench-mcu`: instructions per inference (QEMU TCG plugin), flash and RAM on Cortex-M4 and M55;
# with MCU_PEER_DIR=<folder of TFLite Micro + CMSIS-NN sources> (tools/cortex_m/peer_tflm.py) the
# peer's columns too (a command-line variable reaches the script through the environment);
# not a test. Options in BENCH_MCU_ARGS, e.g. "--boards m4,m7,m33,m55 --models person_detect".
BENCH_MCU_ARGS ?=
bench-mcu: $(BUILD)/mpcc venv mcu-toolchain
	@$(VENV)/bin/python tools/cortex_m/bench_mcu.py $(BENCH_MCU_ARGS)

# `make demo-mcu`: samples/cortex-m (person detection on a Cortex-M4) built and run under QEMU.
MCU_DEMO   := $(BUILD)/demo-mcu
MCU_MODELS := ../shared/models/tflm
MCU_CFLAGS := -mthumb -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16 -O2 -std=c99 -Wall -Wextra -Werror \
              -ffunction-sections -fdata-sections
MCU_LINK   := -nostartfiles --specs=nano.specs --specs=nosys.specs -Wl,--gc-sections -Lsamples/cortex-m/boards
demo-mcu: $(BUILD)/mpcc mcu-toolchain
	@mkdir -p $(MCU_DEMO)
	$(BUILD)/mpcc $(MCU_MODELS)/person_detect.tflite --isa armv7em --name person_detect -o $(MCU_DEMO)/person_detect.c
	@sh samples/cortex-m/bin2c.sh person_bmp $(MCU_MODELS)/person_detection/person.bmp > $(MCU_DEMO)/person_bmp.c
	@sh samples/cortex-m/bin2c.sh no_person_bmp $(MCU_MODELS)/person_detection/no_person.bmp > $(MCU_DEMO)/no_person_bmp.c
	arm-none-eabi-gcc $(MCU_CFLAGS) -Isamples/cortex-m -Iruntime -I$(MCU_DEMO) -o $(MCU_DEMO)/person_detect.elf \
	  samples/cortex-m/startup.c samples/cortex-m/main.c $(MCU_DEMO)/person_detect.c $(MCU_DEMO)/person_bmp.c \
	  $(MCU_DEMO)/no_person_bmp.c $(RT_SRC) $(RT_CM_SRC) $(MCU_LINK) -T samples/cortex-m/boards/mps2-an386.ld \
	  -Wl,-Map=$(MCU_DEMO)/person_detect.map -lm
	@arm-none-eabi-size $(MCU_DEMO)/person_detect.elf
	qemu-system-arm -M mps2-an386 -nographic -monitor none -serial none -chardev stdio,id=semihosting \
	  -semihosting-config enable=on,target=native,chardev=semihosting -kernel $(MCU_DEMO)/person_detect.elf
# ---- end Cortex-M
