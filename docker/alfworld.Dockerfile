# ALFWorld image for `--evaluator docker`: the alfworld package and its game data.
# memrl copies its bridge program into the container at start, so the image needs
# only python3 with `import alfworld` working and ALFWORLD_DATA set.
# Needs PyPI and GitHub downloads: not buildable on machines without internet.
ARG BASE=python:3.10-slim
FROM ${BASE}
RUN pip install --no-cache-dir "alfworld[full]" && alfworld-download
ENV ALFWORLD_DATA=/root/.cache/alfworld
CMD ["sleep", "infinity"]
