// The encoder's stem and one encoder layer in double precision, assembled from the reference's
// pieces (conv1d, gelu_erf, layer_norm, linear, attention_head): what a tap on
// `encoder_layers[0].forward` must hold. Pre-norm residuals as ARCHITECTURE.md describes them:
// x + self_attn(ln1(x)), then + fc2(gelu_erf(fc1(final_ln(.)))).
#pragma once

#include <string>
#include <vector>

#include "reference/whisper_reference.h"

namespace earshot::test::reference {

// The stem of batch row b: conv1 -> gelu -> conv2 (stride 2) -> gelu -> + positions: [A, D].
inline Matrix encoder_stem(const Weights& w, const Dims& dims, const Array3& mel, int64_t b) {
    Matrix h = conv1d(mel.slice(b), w.at("conv1_weight"), w.at("conv1_bias"), 1);
    for (double& v : h.values) v = gelu_erf(v);
    h = conv1d(h, w.at("conv2_weight"), w.at("conv2_bias"), 2);
    for (double& v : h.values) v = gelu_erf(v);  // [D, A]
    const std::vector<double>& positions = w.at("encoder_positions");
    const int64_t a = dims.audio_positions();
    Matrix x(a, dims.d);
    for (int64_t t = 0; t < a; ++t) {
        for (int64_t c = 0; c < dims.d; ++c) {
            x.at(t, c) = h.at(c, t) + positions[static_cast<size_t>(t * dims.d + c)];
        }
    }
    return x;
}

// Self-attention over x [N, D] with the weights under `p` (`encoder_layers.0.self_attn`).
inline Matrix self_attention(const Weights& w, const Dims& dims, const std::string& p,
                             const Matrix& x) {
    const Matrix q = linear(x, w.at(p + ".q_proj.weight"), w.at(p + ".q_proj.bias"));
    const Matrix k = linear(x, w.at(p + ".k_proj.weight"), {});
    const Matrix v = linear(x, w.at(p + ".v_proj.weight"), w.at(p + ".v_proj.bias"));
    const int64_t dh = dims.d / dims.heads;
    Matrix merged(x.rows, dims.d);
    for (int64_t h = 0; h < dims.heads; ++h) {
        Matrix qh(x.rows, dh), kh(x.rows, dh), vh(x.rows, dh);
        for (int64_t i = 0; i < x.rows; ++i) {
            for (int64_t j = 0; j < dh; ++j) {
                qh.at(i, j) = q.at(i, h * dh + j);
                kh.at(i, j) = k.at(i, h * dh + j);
                vh.at(i, j) = v.at(i, h * dh + j);
            }
        }
        const Matrix out = attention_head(qh, kh, vh, Mask::none);
        for (int64_t i = 0; i < x.rows; ++i) {
            for (int64_t j = 0; j < dh; ++j) merged.at(i, h * dh + j) = out.at(i, j);
        }
    }
    return linear(merged, w.at(p + ".out_proj.weight"), w.at(p + ".out_proj.bias"));
}

// Encoder layer `layer` on x [A, D] -> [A, D].
inline Matrix encoder_layer(const Weights& w, const Dims& dims, int64_t layer, Matrix x) {
    const std::string p = "encoder_layers." + std::to_string(layer);
    const Matrix n1 = layer_norm(x, w.at(p + ".self_attn_layer_norm.weight"),
                                 w.at(p + ".self_attn_layer_norm.bias"));
    const Matrix attended = self_attention(w, dims, p + ".self_attn", n1);
    for (size_t i = 0; i < x.values.size(); ++i) x.values[i] += attended.values[i];
    const Matrix n2 =
        layer_norm(x, w.at(p + ".final_layer_norm.weight"), w.at(p + ".final_layer_norm.bias"));
    Matrix hidden = linear(n2, w.at(p + ".mlp.fc1.weight"), w.at(p + ".mlp.fc1.bias"));
    for (double& v : hidden.values) v = gelu_erf(v);
    const Matrix out = linear(hidden, w.at(p + ".mlp.fc2.weight"), w.at(p + ".mlp.fc2.bias"));
    for (size_t i = 0; i < x.values.size(); ++i) x.values[i] += out.values[i];
    return x;
}

}  // namespace earshot::test::reference
