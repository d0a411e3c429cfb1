"""The student model (semcer.judges.student.model): the readout pools exactly the marked span tokens."""

from __future__ import annotations

from student_fixtures import MAX_LENGTH, needs_hf

from semcer.judges.student.data import encode_pair


@needs_hf
def test_readout_pools_exactly_the_span_tokens(student_backbone, student_tokenizer):
    import torch

    from semcer.judges.student.data import collate, pad_token_id
    from semcer.judges.student.model import build_model, load_backbone

    model = build_model(load_backbone(student_backbone)[0], ("last", "ref", "out", "prod", "absdiff"), 16, 0.0, 0).eval()
    short = encode_pair(student_tokenizer, "ab ⟦x⟧ cd", "ab ⟦⟧ cd", MAX_LENGTH)
    long = encode_pair(student_tokenizer, "Số tiền: ⟦1⟧.250", "Số tiền: ⟦7⟧.250 đồng", MAX_LENGTH)
    batch = collate([short, long], pad_token_id(student_tokenizer))
    with torch.no_grad():
        hidden = model.hidden_states(batch["input_ids"], batch["attention_mask"]).float()
        features = model.features(batch)
    h = hidden.shape[-1]
    assert features.shape == (2, 5 * h)
    for row, enc in enumerate((short, long)):
        ref = hidden[row, enc.ref_span[0] : enc.ref_span[1]].mean(dim=0)
        out = hidden[row, enc.hyp_span[0] : enc.hyp_span[1]].mean(dim=0)
        last = hidden[row, len(enc.input_ids) - 1]
        expected = torch.cat([last, ref, out, ref * out, (ref - out).abs()])
        torch.testing.assert_close(features[row], expected, rtol=1e-6, atol=1e-6)
    # The short pair is padded; its last token is its own, not a pad.
    assert len(short.input_ids) < batch["input_ids"].shape[1] and batch["last"][0] == len(short.input_ids) - 1
