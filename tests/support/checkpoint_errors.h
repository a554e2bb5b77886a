// What the checkpoint tests ask of a reader's errors: the message of the CheckpointError it
// throws, and whether a message names a part (tests/engine/checkpoint).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "earshot/engine/checkpoint/errors.h"

namespace earshot::test {

// Passes when `part` occurs in `text`; the failure shows both.
inline testing::AssertionResult contains(const std::string& text, const std::string& part) {
    if (text.find(part) != std::string::npos) {
        return testing::AssertionSuccess();
    }
    return testing::AssertionFailure() << "\"" << part << "\" not in: " << text;
}

// The message of the CheckpointError `read` throws; fails the test when it throws nothing.
template <typename Read>
std::string error_of(Read&& read) {
    try {
        std::forward<Read>(read)();
    } catch (const checkpoint::CheckpointError& error) {
        return error.what();
    }
    ADD_FAILURE() << "expected a CheckpointError";
    return {};
}

}  // namespace earshot::test
