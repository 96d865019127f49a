# The course's tools with the real sandbox, for teachers on macOS and Windows: the class tournament
# and the grader run students' code under bubblewrap, which needs Linux. README: "Running in a container".
#
#   docker build -t gamekit .
#   docker run --rm -it \
#     --security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined \
#     -v "$PWD/class:/class" gamekit \
#     python -m gamekit.tournament run /class/submissions --game tictactoe --db /class/class.sqlite --report /class/board
#
# The three options let bubblewrap make its namespaces and its own /proc inside the container;
# without them the tools refuse to run students' code and say so.
FROM python:3.11-slim-bookworm

RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap \
 && rm -rf /var/lib/apt/lists/*

# a user of its own: students' code never runs as root, not even inside the container
RUN useradd --create-home --uid 1000 teacher
USER teacher
WORKDIR /home/teacher/gamekit
COPY --chown=teacher:teacher . .

# README's install with the same extras (the course and the grader), built as a wheel and installed
# non-editable, as an image should be: the image's Python does not read the copied tree
RUN python3 -m venv .venv && .venv/bin/pip install ".[course,grade]"

ENV PATH="/home/teacher/gamekit/.venv/bin:${PATH}"
WORKDIR /class
CMD ["python", "-m", "gamekit.tournament", "--help"]
