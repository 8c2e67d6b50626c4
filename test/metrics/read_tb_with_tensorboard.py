#!/usr/bin/env python3
"""Reads a TensorBoard log folder with TensorBoard's own EventAccumulator.

Usage: read_tb_with_tensorboard.py DIR -> JSON on stdout:
  {"scalars": [tags], "histograms": {tag: [{"step", "num", "min", "max", "sum", "bucket_limit", "bucket"}]}}
"""
import json
import sys

from tensorboard.backend.event_processing import event_accumulator as ea

acc = ea.EventAccumulator(sys.argv[1], size_guidance={ea.HISTOGRAMS: 0, ea.SCALARS: 0})
acc.Reload()
tags = acc.Tags()
out = {"scalars": sorted(tags.get("scalars", [])), "histograms": {}}
for tag in tags.get("histograms", []):
    out["histograms"][tag] = [
        {
            "step": e.step,
            "num": e.histogram_value.num,
            "min": e.histogram_value.min,
            "max": e.histogram_value.max,
            "sum": e.histogram_value.sum,
            "bucket_limit": list(e.histogram_value.bucket_limit),
            "bucket": list(e.histogram_value.bucket),
        }
        for e in acc.Histograms(tag)
    ]
json.dump(out, sys.stdout)
