# The Parlour server image. It runs `parlour serve` against the Redis named by PARLOUR_REDIS_URL:
#   docker build -t parlour .
#   docker run -p 50051:50051 -p 8080:8080 -e PARLOUR_REDIS_URL=redis://redis:6379/0 parlour
# Without PARLOUR_REDIS_URL it starts its embedded Redis with data under /home/parlour/data (mount a volume).
# It runs one worker process per CPU the container may use (its cpuset, fewer under a --cpus quota), all on
# the same ports; PARLOUR_WORKERS=N sets another number. On SIGTERM (docker stop) it stops them within 8 s.

FROM python:3.11-slim AS build
WORKDIR /src
RUN python -m venv /opt/parlour
COPY constraints.txt pyproject.toml README.md ./
COPY proto proto
COPY third_party third_party
COPY clients/python clients/python
COPY engines engines
COPY service service
# Building proto/ (parlour-protocol) generates parlour.v1 from the .proto files (grpcio-tools is its build
# requirement, used in pip's isolated build environment only, so it is not in the final image); the SDK
# (clients/python) and the server depend on it and find it here, never on a package index.
RUN /opt/parlour/bin/pip install --no-cache-dir -c constraints.txt ./proto ./clients/python .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 parlour
COPY --from=build /opt/parlour /opt/parlour
COPY clients/web /opt/parlour/web
USER 10001
WORKDIR /home/parlour
ENV PATH=/opt/parlour/bin:$PATH \
    PARLOUR_DATA_DIR=/home/parlour/data \
    PARLOUR_WEB_DIR=/opt/parlour/web \
    PYTHONUNBUFFERED=1
EXPOSE 50051 8080
# Healthy: gRPC health SERVING and Redis readable (`--ready`; without it only the former is checked).
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 CMD ["python", "-m", "service.health_probe", "--ready"]
ENTRYPOINT ["parlour", "serve"]
