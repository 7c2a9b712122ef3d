"""Exercise 02, dtype rules: the dtype torch.tensor picks for Python data, and the dtype of an
operation between a tensor and a Python number.

Both take and return dtype *names* (strings such as "int64"), so the grader compares plain
strings; the notebook then checks the learner's functions against minitorch on many inputs.
The reference solutions are the solution cells of solutions/02_dtype_rules.ipynb.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


# ---- inputs -------------------------------------------------------------------------------
def _visible_q1():
    return [(3,), (2.5,), (True,), ([1, 2, 3],), ([1, 2.0, 3],), ([True, False],), ([True, 2],),
            ([[0.5, 1], [2, 3]],), ([],), ([[], []],), ((1, 2),), ([(True,), (False,)],),
            ([[1, 2], [3, 4.0]],), ([[[True]]],), ([0],), ([False, 0.0],)]


def _random_value(rng, kinds):
    k = rng.choice(kinds)
    return {"bool": rng.random() < 0.5, "int": rng.randint(-5, 5), "float": float(rng.randint(-5, 5)) / 2}[k]


def _random_q1(rng, n):
    out = []
    for _ in range(n):
        kinds = rng.sample(["bool", "int", "float"], rng.randint(1, 3))
        shape = [rng.randint(1, 3) for _ in range(rng.randint(0, 3))]

        def build(sh):
            if not sh:
                return _random_value(rng, kinds)
            items = [build(sh[1:]) for _ in range(sh[0])]
            return tuple(items) if rng.random() < 0.15 else items
        out.append((build(shape),))
    return out


def _visible_q2():
    return [("int32", 5, "+"), ("int64", 2.5, "+"), ("int64", 2, "/"), ("int64", 2, "*"),
            ("float16", 2.5, "+"), ("float64", 3, "*"), ("bool", True, "+"), ("bool", 3, "+"),
            ("bool", 2.5, "*"), ("bool", True, "/"), ("uint8", 300, "+"), ("int8", True, "*"),
            ("float16", 2, "/"), ("int16", 0.5, "/")]


def _random_q2(rng, n):
    return [(rng.choice(DTYPES), rng.choice([True, False, rng.randint(-9, 9), rng.randint(-9, 9) / 4]),
             rng.choice(["+", "*", "/"])) for _ in range(n)]


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="02_dtype_rules",
    title="Which dtype? Python data into a tensor, and a tensor meeting a Python number",
    forbidden_imports=("minitorch", "torch", "numpy", "jax", "tensorflow"),
    preload=(),
    forbidden_reason="write the rules yourself in plain Python: minitorch and NumPy would answer for you",
    questions=[
        QuestionSpec(
            id="q1", function="infer_dtype", title="(a) the dtype torch.tensor(data) picks",
            solution_cell="infer_dtype", test_cell="test_infer_dtype",
            visible_cases=_visible_q1, random_cases=_random_q1,
            hints=[
                "Collect the Python types of all the numbers: walk lists and tuples recursively. "
                "type(True) is bool, not int, so bools and ints stay apart.",
                "Then: any float -> \"float32\" (PyTorch's default float, not NumPy's float64); "
                "otherwise any int -> \"int64\"; otherwise \"bool\".",
                "No number at all (torch.tensor([]), [[], []]) is a float tensor: \"float32\".",
            ]),
        QuestionSpec(
            id="q2", function="scalar_op_dtype", title="(b) a tensor and a Python number",
            solution_cell="scalar_op_dtype", test_cell="test_scalar_op_dtype",
            visible_cases=_visible_q2, random_cases=_random_q2,
            hints=[
                "A Python number counts only for its category (bool < int < float), never its width: "
                "it changes the result only when its category is higher than the tensor's.",
                "When it is higher, the result is that category's default: an int gives \"int64\", a "
                "float gives \"float32\". So int32 + 5 is int32, bool + 3 is int64, int64 + 2.5 is float32, "
                "float16 + 2.5 stays float16.",
                "Then \"/\" is true division: if the result so far is bool or an integer, it becomes "
                "\"float32\"; a float dtype stays as it is.",
            ]),
    ],
)
