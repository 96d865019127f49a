"""Exercises written as text: a short YAML file becomes the master's cells (`new-exercise`).

A master holds an exercise as eleven or so cells in otter's format (question markers, the prompt
with its slide metadata and self-study hint, the solution between markers, public and hidden
tests with their configs). Written by hand they are raw JSON; here they are written once, as
text a review can read, and this module makes the cells, checks them with the same rules as the
suite (`gamekit.course.nbcheck`) and inserts them after the lesson's last exercise. The format,
with every field (`template` prints it):

    exercise: "1.9"            # the label; its question is q1_9, its answer answer_1_9
    kind: compute              # predict | compute | modify | explain (explain: graded by hand)
    points: 1
    prompt: |                  # Markdown after "**Exercise 1.9** (compute) "
      How many ...? Assign the number to `answer_1_9`.
    hint: one line that points to the method, never to the answer
    solution: |                # code (Markdown for explain)
      answer_1_9 = ...
    public:                    # what a student's check says (never the answer)
      - message: answer_1_9 must be a whole number
        code: |
          assert type(as_answer(answer_1_9)) is int
    hidden:                    # what grades
      - code: |
          assert same_answer(answer_1_9, 42)

Nothing is written when the text or the cells it makes are wrong: the error names the field or
the cell and what is allowed. `docs/authoring.md` is the checklist around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import nbformat

__all__ = ["KINDS", "ExerciseText", "exercise_cells", "insert_exercise", "parse_exercise", "template"]

KINDS = ("predict", "compute", "modify", "explain")
LABEL = re.compile(r"^(\d+)\.(\d+)$")
FIELDS = {"exercise", "kind", "points", "prompt", "hint", "solution", "public", "hidden"}


@dataclass(frozen=True)
class ExerciseText:
    """One exercise as its author wrote it (see the module docstring)."""

    lesson: int
    number: int
    kind: str
    points: float
    prompt: str
    solution: str
    hint: str = ""
    public: tuple[tuple[str, str], ...] = field(default=())  # (failure message, code)
    hidden: tuple[str, ...] = field(default=())

    @property
    def label(self) -> str:
        return f"{self.lesson}.{self.number}"

    @property
    def question(self) -> str:
        return f"q{self.lesson}_{self.number}"

    @property
    def answer(self) -> str:
        return f"answer_{self.lesson}_{self.number}"

    @property
    def manual(self) -> bool:
        return self.kind == "explain"


def _text(data: dict, name: str, required: bool = True) -> str:
    value = data.get(name, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValueError(f"the exercise's {name!r} must be text, got {type(value).__name__}")
    if required and not value.strip():
        raise ValueError(f"the exercise needs a {name!r}")
    return value.strip("\n")


def parse_exercise(text: str) -> ExerciseText:
    """The exercise in `text` (YAML), checked field by field; ValueError names what is wrong."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"the exercise is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("the exercise is a YAML mapping of the fields " + ", ".join(sorted(FIELDS)))
    unknown = sorted(set(map(str, data)) - FIELDS)
    if unknown:
        raise ValueError(f"unknown fields {unknown}; the fields are {', '.join(sorted(FIELDS))}")
    label = str(data.get("exercise", ""))
    match = LABEL.match(label)
    if match is None:
        raise ValueError(f"'exercise' is a label N.M such as \"1.9\" (quoted), got {data.get('exercise')!r}")
    kind = data.get("kind")
    if kind not in KINDS:
        raise ValueError(f"'kind' is one of {', '.join(KINDS)}, got {kind!r}")
    points = data.get("points", 1)
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not points > 0:
        raise ValueError(f"'points' is a positive number, got {points!r}")
    public, hidden = data.get("public") or [], data.get("hidden") or []
    if not isinstance(public, list) or not isinstance(hidden, list):
        raise ValueError("'public' and 'hidden' are lists of tests (each with 'code'; public ones with 'message')")
    checks = []
    for k, test in enumerate(public):
        if not isinstance(test, dict) or set(test) - {"message", "code"}:
            raise ValueError(f"public test {k + 1} is a mapping with 'message' and 'code'")
        checks.append((_text(test, "message"), _text(test, "code")))
    graded = []
    for k, test in enumerate(hidden):
        if not isinstance(test, dict) or set(test) - {"code"}:
            raise ValueError(f"hidden test {k + 1} is a mapping with 'code'")
        graded.append(_text(test, "code"))
    exercise = ExerciseText(
        lesson=int(match.group(1)),
        number=int(match.group(2)),
        kind=kind,
        points=points,
        prompt=_text(data, "prompt"),
        solution=_text(data, "solution"),
        hint=_text(data, "hint", required=False),
        public=tuple(checks),
        hidden=tuple(graded),
    )
    if exercise.manual and (checks or graded):
        raise ValueError("an 'explain' exercise is graded by hand: it has no public or hidden tests")
    if not exercise.manual and (not checks or not graded):
        raise ValueError("a graded exercise needs at least one public and one hidden test")
    return exercise


def _raw(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_raw_cell(text, metadata={"slideshow": {"slide_type": "skip"}})


def _code(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(text, metadata={"slideshow": {"slide_type": "skip"}})


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _solution_code(exercise: ExerciseText) -> str:
    """The solution as otter hides it from the student copy: its working between `# BEGIN
    SOLUTION` and `# END SOLUTION`, and a last line `answer_N_M = ...` marked `# SOLUTION`, which
    the student copy shows as `answer_N_M = ...` (the cell then shows the answer)."""
    lines = exercise.solution.rstrip().splitlines()
    last = lines[-1] if lines else ""
    if last.startswith(f"{exercise.answer} =") and "#" not in last:
        body = lines[:-1]
        working = ["# BEGIN SOLUTION", *body, "# END SOLUTION"] if any(line.strip() for line in body) else []
        return "\n".join([*working, f"{last}  # SOLUTION", exercise.answer])
    return "\n".join(["# BEGIN SOLUTION", *lines, "# END SOLUTION"])


def exercise_cells(exercise: ExerciseText) -> list[nbformat.NotebookNode]:
    """The master's cells for `exercise`, in otter's format, with the course's metadata."""
    config = f"# BEGIN QUESTION\nname: {exercise.question}\npoints: {exercise.points:g}"
    cells = [_raw(config + ("\nmanual: true" if exercise.manual else ""))]
    meta: dict[str, Any] = {"slideshow": {"slide_type": "subslide"}}
    if exercise.hint:
        meta["self_study_hint"] = " ".join(exercise.hint.split())
    prompt = f"**Exercise {exercise.label}** ({exercise.kind}) {exercise.prompt}"
    cells.append(nbformat.v4.new_markdown_cell(prompt, metadata=meta))
    cells.append(_raw("# BEGIN SOLUTION"))
    if exercise.manual:
        cells.append(nbformat.v4.new_markdown_cell(exercise.solution, metadata={"slideshow": {"slide_type": "skip"}}))
    else:
        cells.append(_code(_solution_code(exercise)))
    cells.append(_raw("# END SOLUTION"))
    if not exercise.manual:
        cells.append(_raw("# BEGIN TESTS"))
        for message, code in exercise.public:
            head = f'""" # BEGIN TEST CONFIG\npoints: 0\nfailure_message: {_quoted(message)}\n""" # END TEST CONFIG\n'
            cells.append(_code(head + code))
        for code in exercise.hidden:
            cells.append(_code('""" # BEGIN TEST CONFIG\nhidden: true\n""" # END TEST CONFIG\n' + code))
        cells.append(_raw("# END TESTS"))
    cells.append(_raw("# END QUESTION"))
    return cells


def insert_exercise(nb: nbformat.NotebookNode, exercise: ExerciseText) -> nbformat.NotebookNode:
    """A copy of the master `nb` with `exercise`'s cells after its last exercise; ValueError (with
    `nb` unchanged) when the exercise does not fit: another lesson's number, a label or question
    that exists, or cells that break the course's exercise rules."""
    from . import master
    from .bilingual import edition
    from .nbcheck import exercise_problems, exercises

    bilingual, nb = nb, edition(nb, "en")  # the rules are the English edition's; the German follows in translation
    labels = [label for label, _ in exercises(nb)]
    lessons = {int(label.split(".")[0]) for label in labels}
    if lessons and exercise.lesson not in lessons:
        raise ValueError(f"Exercise {exercise.label} is not of this lesson, whose exercises are {', '.join(labels)}")
    if exercise.label in labels:
        raise ValueError(f"Exercise {exercise.label} exists already in this lesson ({', '.join(labels)})")
    questions = master.questions(nb)
    if exercise.question in {q.name for q in questions}:
        raise ValueError(f"the question {exercise.question} exists already in this lesson")
    ends = [i for i, c in enumerate(nb.cells) if c.cell_type == "raw" and c.source.strip() == "# END QUESTION"]
    if not ends:
        raise ValueError("this notebook has no exercise yet (no '# END QUESTION' cell): it is not a chapter's master")
    before = exercise_problems(nb)
    changed = nbformat.reads(nbformat.writes(nb), as_version=4)
    at = ends[-1] + 1
    new = exercise_cells(exercise)
    changed.cells[at:at] = new
    problems = [p for p in exercise_problems(changed) if p not in before]
    if problems:
        raise ValueError("the exercise's cells break the course's rules: " + "; ".join(problems))
    # into the master itself, German cells kept: after its last END QUESTION as well
    result = nbformat.reads(nbformat.writes(bilingual), as_version=4)
    last = [i for i, c in enumerate(result.cells) if c.cell_type == "raw" and c.source.strip() == "# END QUESTION"][-1]
    result.cells[last + 1 : last + 1] = new
    return result


def template(label: str, kind: str = "compute") -> str:
    """A skeleton of an exercise's text, to fill in."""
    match = LABEL.match(label)
    if match is None:
        raise ValueError(f"an exercise's label is N.M such as 1.9, got {label!r}")
    if kind not in KINDS:
        raise ValueError(f"kind is one of {', '.join(KINDS)}, got {kind!r}")
    answer = f"answer_{match.group(1)}_{match.group(2)}"
    if kind == "explain":
        return (
            f'exercise: "{label}"\nkind: explain\npoints: 2\nprompt: |\n  The question, in a few sentences.\n'
            "solution: |\n  A model answer, in Markdown, for the teacher and the published solutions.\n"
        )
    return (
        f'exercise: "{label}"\nkind: {kind}\npoints: 1\nprompt: |\n  The question. Assign the result to `{answer}`.\n'
        f"hint: one line that points to the method, never to the answer\nsolution: |\n  {answer} = ...\n"
        f"public:\n  - message: {answer} must be ... (what is wrong with the form, never the answer)\n"
        f"    code: |\n      assert type(as_answer({answer})) is int\n"
        f"hidden:\n  - code: |\n      assert same_answer({answer}, ...)\n"
    )
