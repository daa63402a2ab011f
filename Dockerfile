# syntax=docker/dockerfile:1
# Images of the `hfarm` binaries (coordinator and workers):
#
#   docker build --target cpu  -t hfarm:dev .        # coordinator, CPU workers (the default target)
#   docker build --target cuda -t hfarm-cuda:dev .   # GPU workers: the CUDA build of torch 2.11.0
#
# `hfarm` leaves libtorch out and hands what runs models (workers) to
# `hfarm-torch` beside it, which links libtorch's CPU library and loads
# libtorch_cuda at run time when it can (crates/learner), so both images
# carry the same binaries and differ only in the libtorch beside them. Base images are pinned by tag and
# digest; the runtime stages have no compiler, cargo or pip.
ARG RUST_IMAGE=rust:1.95.0-bookworm@sha256:6258907abe69656e41cd992e0b705cdcfabcbbe3db374f92ed2d47121282d4a1
ARG DEBIAN_IMAGE=debian:bookworm-20260824-slim@sha256:88200866dfff7ea7f5cbcb6ec7c8a701889efe6fe859fe64d6990e4b07ea4171

# The binary, against the libtorch that scripts/libtorch unpacks from PyPI's
# torch 2.11.0 wheel (the workspace's crates are under crates/).
FROM ${RUST_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3-pip \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
ENV HFARM_CACHE=/opt/hfarm-cache
RUN ./scripts/libtorch \
 && cargo build --release --locked -p hfarm --bins \
 && mkdir -p /opt/hfarm-bin \
 && cp target/release/hfarm target/release/hfarm-torch /opt/hfarm-bin/

# The CUDA build of torch 2.11.0 with its CUDA libraries (cuBLAS, cuDNN, ...),
# installed where the runtime image takes them from; pip stays in this stage.
FROM ${DEBIAN_IMAGE} AS torch-cuda
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates python3-pip \
 && rm -rf /var/lib/apt/lists/*
RUN PIP_BREAK_SYSTEM_PACKAGES=1 pip3 install --no-cache-dir --only-binary=:all: \
      --target /opt/torch-cuda torch==2.11.0

# What both images share: a few runtime libraries, the grids, a non-root user.
FROM ${DEBIAN_IMAGE} AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl libgomp1 \
 && rm -rf /var/lib/apt/lists/*
COPY grids /opt/hfarm/grids
WORKDIR /opt/hfarm
ENTRYPOINT ["hfarm"]
CMD ["--help"]

FROM runtime AS cuda
COPY --from=torch-cuda /opt/torch-cuda /opt/torch-cuda
ENV LD_LIBRARY_PATH=/opt/torch-cuda/torch/lib
COPY --from=build /opt/hfarm-bin/ /usr/local/bin/
USER 65534:65534

# Last, so that a plain `docker build .` (and compose.yaml) builds the CPU image.
FROM runtime AS cpu
COPY --from=build /opt/hfarm-cache/libtorch-2.11.0 /opt/libtorch
ENV LD_LIBRARY_PATH=/opt/libtorch/torch/lib
COPY --from=build /opt/hfarm-bin/ /usr/local/bin/
USER 65534:65534
