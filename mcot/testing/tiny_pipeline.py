"""A tiny Stable Diffusion pipeline with random weights, built and saved locally: no hub, no download.

For tests, perf scripts and dry runs of `diffusers:PATH`: a small UNet, VAE and CLIP text encoder and a
tokenizer read from a vocab.json and merges.txt written here. Its images are noise, but every byte of them goes
through the real loading path (`from_pretrained(FOLDER)`) and the real pipeline call. Needs the `gen` extra.
"""

from __future__ import annotations

import json
from pathlib import Path

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def write_tokenizer(folder: Path) -> None:
    """Write a CLIP tokenizer's vocab.json (special tokens, letters, word-final letters) and merges.txt."""
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}
    for letter in _LETTERS:
        vocab[letter] = len(vocab)
    for letter in _LETTERS:
        vocab[letter + "</w>"] = len(vocab)
    merges = ["#version: 0.2", "r e", "l l</w>", "i g", "h t</w>"]
    for merge in merges[1:]:
        vocab["".join(merge.split())] = len(vocab)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (folder / "merges.txt").write_text("\n".join(merges) + "\n", encoding="utf-8")


def build_tiny_pipeline(folder: Path, pipeline: str = "StableDiffusionPipeline") -> Path:
    """Save a randomly initialised tiny Stable Diffusion pipeline (64×64 images) to `folder`; return it."""
    import diffusers
    import torch
    from diffusers import AutoencoderKL, DDIMScheduler, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer

    torch.manual_seed(0)
    unet = UNet2DConditionModel(
        block_out_channels=(32, 64),
        layers_per_block=1,
        sample_size=32,
        in_channels=4,
        out_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        cross_attention_dim=32,
    )
    vae = AutoencoderKL(
        block_out_channels=(32, 64),
        in_channels=3,
        out_channels=3,
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        latent_channels=4,
        sample_size=64,
    )
    text_encoder = CLIPTextModel(
        CLIPTextConfig(
            bos_token_id=0,
            eos_token_id=1,
            pad_token_id=1,
            hidden_size=32,
            intermediate_size=37,
            num_attention_heads=4,
            num_hidden_layers=2,
            vocab_size=128,
            max_position_embeddings=77,
        )
    )
    write_tokenizer(folder.parent / f"{folder.name}-vocab")
    tokenizer = CLIPTokenizer.from_pretrained(str(folder.parent / f"{folder.name}-vocab"), model_max_length=77)
    scheduler = DDIMScheduler(steps_offset=1, clip_sample=False, set_alpha_to_one=False)
    cls = getattr(diffusers, pipeline)
    pipe = cls(
        vae=vae,
        text_encoder=text_encoder,
        tokenizer=tokenizer,
        unet=unet,
        scheduler=scheduler,
        safety_checker=None,
        feature_extractor=None,
        requires_safety_checker=False,
    )
    pipe.save_pretrained(str(folder))
    return folder
