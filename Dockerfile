# One image for the coordinator and the workers: `hfarm serve` / `hfarm worker`.
# Build with `--build-arg TORCH_CUDA=1` for GPU workers (adds the CUDA build of
# torch 2.11.0, whose libtorch_cuda the learner loads at start).
FROM rust:1-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3-pip && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
ENV HFARM_CACHE=/opt/hfarm-cache
RUN ./scripts/libtorch && cargo build --release --locked --bin hfarm

FROM debian:bookworm-slim
ARG TORCH_CUDA=0
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl libgomp1 python3-pip \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /opt/hfarm-cache/libtorch-2.11.0 /opt/libtorch
RUN if [ "$TORCH_CUDA" = 1 ]; then \
      PIP_BREAK_SYSTEM_PACKAGES=1 pip3 install --no-cache-dir --target /opt/torch-cuda torch==2.11.0; fi
ENV LD_LIBRARY_PATH=/opt/torch-cuda/torch/lib:/opt/libtorch/torch/lib
COPY --from=build /src/target/release/hfarm /usr/local/bin/hfarm
COPY grids /opt/hfarm/grids
WORKDIR /opt/hfarm
USER nobody
ENTRYPOINT ["hfarm"]
CMD ["--help"]
