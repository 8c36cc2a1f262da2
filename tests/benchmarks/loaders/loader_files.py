"""Builders shared by the loader tests: tiny images made with PIL, native benchmark files, the shared data path."""

from __future__ import annotations

import base64
import io
import json
import os
from pathlib import Path

from PIL import Image

SHARED = Path(os.environ.get("MCOT_SHARED_DATA") or Path(__file__).resolve().parents[4] / "shared" / "data")


def make_image(size: tuple[int, int] = (8, 6), mode: str = "RGB", fmt: str = "PNG") -> bytes:
    """Return the bytes of a small image with a gradient, so that every pixel is distinct."""
    image = Image.new(mode, size)
    bands = len(image.getbands())
    pixels = [
        tuple((x * 30 + y * 7 + b * 50) % 256 for b in range(bands)) for y in range(size[1]) for x in range(size[0])
    ]
    image.putdata([p[0] if bands == 1 else p for p in pixels])
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


def gepbench_native(root: Path) -> Path:
    """Build a GePBench native folder with two good questions and four bad lines; return it."""
    (root / "figures").mkdir(parents=True)
    (root / "figures" / "easy_00000000.jpg").write_bytes(make_image(size=(16, 16), mode="L", fmt="JPEG"))
    (root / "figures" / "hard_00000001.jpg").write_bytes(make_image(size=(16, 16), mode="L", fmt="JPEG"))
    (root / "vqa-easy").mkdir()
    (root / "vqa-hard").mkdir()
    counting = [
        {"image_id": 0, "question_id": 0, "question": "How many circles?", "choices": [0, 1, 2, 3], "answer": 2},
        {"image_id": 0, "question_id": 1, "question": "How many lines?", "choices": [1, 2, 3, 4], "answer": 7},
        {"image_id": 5, "question_id": 0, "question": "How many squares?", "choices": [0, 1, 2, 3], "answer": 0},
        {"image_id": "zero", "question_id": 0, "question": "How many?", "choices": [0, 1, 2, 3], "answer": 0},
    ]
    lines = [json.dumps(record) for record in counting] + ['{"image_id": 0, "question_id": 9, "quest']
    (root / "vqa-easy" / "counting.jsonl").write_text("\n".join(lines) + "\n")
    relation = {
        "image_id": 1,
        "question_id": 0,
        "question": "What is the relationship of the circle to the square?",
        "choices": ["inscribed", "tangent", "parallel", "none of the above"],
        "answer": "none of the above",
        "source_rule": 17,
    }
    (root / "vqa-hard" / "relation.jsonl").write_text(json.dumps(relation))
    return root


QUESTIONS = "1. Is the light source plausible?\n2. Is the shadow right?\n3. a\n4. b\n5. c"


def gobench_record(index: str, image: str, prompt: str) -> dict:
    """Return one data_total.json record."""
    return {
        "index": index,
        "category": "reflect_light_images",
        "image": image,
        "title": "Mirror",
        "prompt": prompt,
        "Questions_reality": QUESTIONS,
        "Question_aesthetics": "Please rate the aesthetics of the image on a scale of 1-5.",
        "Question_Instruction_consistency": "Please rate the instruction consistency on a scale of 1-5.",
    }


def gobench_dataset(root: Path) -> Path:
    """Build a GOBench folder: four records, one image present, one path escaping; return it."""
    (root / "reflect_light_images").mkdir(parents=True)
    (root / "reflect_light_images" / "1.1.png").write_bytes(make_image())
    records = [
        gobench_record("reflect_light_images_1.1", "reflect_light_images/1.1.png", "A cat before a mirror."),
        gobench_record("reflect_light_images_1.2", "reflect_light_images/1.2.png", "A cat before a mirror."),
        gobench_record("reflect_light_images_2.1", "../../etc/passwd", "A spoon in water."),
        {
            **gobench_record("reflect_light_images_2.2", "reflect_light_images/1.1.png", "A spoon in water."),
            "prompt": 5,
        },
    ]
    (root / "data_total.json").write_text(json.dumps(records))
    return root


OMNIPHYS_MAPPING = "id=编号,question=题目,answer=答案,type=题型,choices=选项,images=图片,output_image=参考图,solution=解析,stage=学段,domain=领域"


def write_jsonl(path: Path, records: list) -> Path:
    """Write records (dicts, or raw text lines) as JSONL; return the path."""
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def omniphys_records(root: Path) -> list:
    """Return OmniPhys records with Chinese keys, one per task type plus bad ones; images go under root/img."""
    (root / "img").mkdir(parents=True, exist_ok=True)
    (root / "img" / "in.png").write_bytes(make_image())
    (root / "img" / "out.png").write_bytes(make_image(size=(9, 6)))
    common = {"学段": "高中", "领域": "Mechanics", "解析": ["受力分析", "列方程", "求解"]}
    return [
        {
            "编号": "q1",
            "题目": "小球受几个力？",
            "选项": ["一个", "两个", "三个", "四个"],
            "答案": "B",
            "题型": "单选题",
            "图片": "img/in.png",
            **common,
        },
        {"编号": "q2", "题目": "哪些说法正确？\nA. 甲\nB. 乙\nC. 丙", "答案": "A,C", "题型": "多选题", **common},
        {"编号": "q3", "题目": "光在真空中沿直线传播。", "答案": "对", "题型": "判断题", "难度": 2, **common},
        {"编号": "q4", "题目": "速度为__m/s，时间为__s。", "答案": ["3", "4"], "题型": "填空题", **common},
        {"编号": "q5", "题目": "求加速度。", "答案": "2 m/s²", "题型": "计算题", **common},
        {
            "编号": "q6",
            "题目": "画出小球的受力示意图。",
            "题型": "作图题",
            "图片": "img/in.png",
            "参考图": "img/out.png",
            **common,
        },
        {"编号": "q7", "题目": "?", "答案": "A", "题型": "连线题", **common},
        {"编号": "q8", "题目": ["not", "text"], "答案": "A", "题型": "单选题"},
        {"编号": "q9", "题目": "画图", "题型": "作图题", "图片": "../../etc/passwd", "参考图": "img/out.png"},
        {
            "编号": "q10",
            "题目": "看图",
            "答案": "1",
            "题型": "解答题",
            "图片": "data:image/png;base64," + base64.b64encode(make_image()).decode(),
        },
        '{"编号": "q11", "题目": "cut sh',
    ]
