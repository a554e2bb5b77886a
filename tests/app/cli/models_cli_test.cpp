// `earshot models` and `--model NAME` through the real executable, against the local hub of
// tests/support/hub_server.py: a full pull that transcribes, resume after a cut connection and
// after Ctrl-C, a corrupted file, 404, a stalled server, no connection, a refusing proxy and a
// full disk, each with its message.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "core/models/model_catalog.h"
#include "core/models/model_download.h"
#include "file_bytes.h"
#include "micro_model.h"
#include "models_hub_server.h"
#include "plain_words.h"
#include "run_process.h"
#include "spoken_words.h"
#include "temp_dir.h"
#include "word_edits.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

constexpr size_t kBlobBytes = 300000;  // the transfer tests' file: big enough to cut and stall

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

class ModelsCommand : public ::testing::Test {
protected:
    void SetUp() override {
        // The micro model as a Hugging Face repository, every file's SHA-256 in the catalog.
        entries_.push_back(publish(hub_, "earshot-test/micro", "micro-test", "hf",
                                   micro_model_dir(),
                                   {{"config.json"},
                                    {"generation_config.json"},
                                    {"vocab.json"},
                                    {"merges.txt"},
                                    {"model.safetensors"}}));
        // One file (random bytes) without a hash in the catalog: the hub's X-Linked-Etag is
        // what it is checked against.
        std::mt19937 random(7);
        std::vector<char> blob(kBlobBytes);
        for (char& c : blob) c = static_cast<char>(random() & 0xFF);
        fs::create_directories(dir_.path() / "source");
        std::ofstream(dir_.path() / "source" / "ggml-blob.bin", std::ios::binary)
            .write(blob.data(), static_cast<std::streamsize>(blob.size()));
        entries_.push_back(publish(hub_, "earshot-test/blob", "blob-test", "ggml",
                                   dir_.path() / "source", {{"ggml-blob.bin", false}}));
        write_catalog(catalog_, entries_);
        ASSERT_GT(server_.port(), 0) << "the hub server did not start";
    }

    // The environment of every command: its own data and config folders, the test catalog, the
    // local hub, and no proxy unless a test sets one.
    std::string env(const std::string& hub, const std::string& extra = {}) const {
        return "env -u http_proxy -u https_proxy -u all_proxy -u HTTPS_PROXY -u ALL_PROXY "
               "-u no_proxy -u NO_PROXY -u HF_ENDPOINT XDG_DATA_HOME=" +
               shell_quote(data_.string()) + " XDG_CONFIG_HOME=" + shell_quote(config_.string()) +
               " EARSHOT_CATALOG=" + shell_quote(catalog_.string()) +
               " EARSHOT_HUB_URL=" + shell_quote(hub) + " " + extra + " ";
    }
    ProcessResult earshot(const std::string& args, const std::string& hub,
                          const std::string& extra = {}) const {
        return run_shell(env(hub, extra) + shell_quote(EARSHOT_EXE) + " " + args);
    }
    std::string requests() const { return read_file_text(log_); }
    fs::path models() const { return data_ / "earshot" / "models"; }
    fs::path blob_part() const { return models() / "blob-test" / "ggml-blob.bin.part"; }
    fs::path blob() const { return models() / "blob-test" / "ggml-blob.bin"; }
    std::vector<unsigned char> source_blob() const {
        return read_file_bytes(dir_.path() / "source" / "ggml-blob.bin", "blob");
    }

    TempDir dir_{"earshot-models"};
    fs::path hub_ = dir_.path() / "hub";
    fs::path data_ = dir_.path() / "data";
    fs::path config_ = dir_.path() / "config";
    fs::path catalog_ = dir_.path() / "catalog.json";
    fs::path log_ = dir_.path() / "requests.log";
    std::vector<nlohmann::json> entries_;
    HubServer server_{hub_, log_};
};

TEST_F(ModelsCommand, PullsAModelThatTranscribesLikeTheOriginal) {
    ProcessResult r = earshot("models list", server_.url());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "Models folder: " + models().string())) << r.out;
    EXPECT_TRUE(
        std::regex_search(r.out, std::regex(R"(micro-test +hf +9\.1 MB +~50\.0 MB +English +-\n)")))
        << r.out;
    EXPECT_TRUE(contains(r.out, "ggml-large-v3-turbo ")) << r.out;  // the built-in catalog

    r = earshot("models pull micro-test", server_.url());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, (models() / "micro-test").string() + "\n");
    EXPECT_TRUE(contains(r.err, "model.safetensors [5/5]")) << r.err;
    EXPECT_TRUE(contains(r.err, "Installed micro-test")) << r.err;
    for (const char* file : {"config.json", "vocab.json", "merges.txt", "model.safetensors"}) {
        EXPECT_EQ(read_file_bytes(models() / "micro-test" / file, file),
                  read_file_bytes(micro_model_dir() / file, file))
            << file;
    }
    EXPECT_FALSE(fs::exists(models() / "micro-test" / "model.safetensors.part"));
    // The weights came the hub's way: a redirect carrying X-Linked-Etag, then the CDN.
    EXPECT_TRUE(
        contains(requests(), "GET /earshot-test/micro/resolve/main/model.safetensors - 302"))
        << requests();
    EXPECT_TRUE(contains(requests(), "GET /cdn/earshot-test/micro/model.safetensors - 200"));

    r = earshot("models list", server_.url());
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(micro-test .* installed \(\d+\.\d MB\))")))
        << r.out;
    r = earshot("models path micro-test", server_.url());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, (models() / "micro-test").string() + "\n");

    // The downloaded model, by name, hears what the original hears.
    SpeechOptions speech;
    speech.whole_sentences = true;
    speech.lead_s = 0.3;
    speech.tail_s = 0.5;
    const std::vector<std::vector<std::string>> sentences = micro_heldout_words(3);
    std::string why;
    const auto audio = speak_sentences(sentences, speech, &why);
    ASSERT_TRUE(audio) << why;
    const fs::path wav = dir_.path() / "said.wav";
    write_wav_pcm16(wav, audio->samples);
    r = earshot("transcribe " + shell_quote(wav.string()) + " --model micro-test --format txt " +
                    "--output-dir " + shell_quote((dir_.path() / "by-name").string()),
                server_.url());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = earshot("transcribe " + shell_quote(wav.string()) + " --model " +
                    shell_quote(micro_model_dir().string()) + " --format txt --output-dir " +
                    shell_quote((dir_.path() / "original").string()),
                server_.url());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string heard = read_file_text(dir_.path() / "by-name" / "said.txt");
    EXPECT_EQ(heard, read_file_text(dir_.path() / "original" / "said.txt"));
    std::vector<std::string> said;
    for (const auto& sentence : sentences)
        said.insert(said.end(), sentence.begin(), sentence.end());
    const size_t edits = word_edits(said, plain_words(heard));
    EXPECT_LE(edits * 3, said.size()) << heard;  // a demo model, but far from noise

    r = earshot("models rm micro-test", server_.url());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(fs::exists(models() / "micro-test"));
    r = earshot("transcribe " + shell_quote(wav.string()) + " --model micro-test", server_.url());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.err,
                         "micro-test is not installed; run `earshot models pull "
                         "micro-test` first"))
        << r.err;
    r = earshot("models path micro-test", server_.url());
    EXPECT_EQ(r.exit_code, 2);
    r = earshot("models pull no-such-model", server_.url());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.err, "no model called \"no-such-model\"")) << r.err;
}

TEST_F(ModelsCommand, ResumesAfterTheConnectionClosesEarly) {
    ProcessResult r = earshot("models pull blob-test", server_.url("cut-60000"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "the connection closed early")) << r.err;
    EXPECT_TRUE(contains(r.err, "`earshot models pull blob-test` resumes it")) << r.err;
    ASSERT_TRUE(fs::exists(blob_part()));
    EXPECT_EQ(fs::file_size(blob_part()), 60000u);
    EXPECT_FALSE(fs::exists(blob()));

    r = earshot("models pull blob-test", server_.url());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(requests(), "GET /cdn/earshot-test/blob/ggml-blob.bin bytes=60000- 206"))
        << requests();
    EXPECT_EQ(read_file_bytes(blob(), "downloaded"), source_blob());
    EXPECT_FALSE(fs::exists(blob_part()));
}

TEST_F(ModelsCommand, APartLongerThanTheFileIsDroppedAndTheNextPullStartsOver) {
    fs::create_directories(blob_part().parent_path());
    std::ofstream(blob_part(), std::ios::binary) << std::string(kBlobBytes + 10, 'x');
    ProcessResult r = earshot("models pull blob-test", server_.url());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err,
                         "the partial download of ggml-blob.bin (300.0 kB) is longer than "
                         "the file on the server; it was removed"))
        << r.err;
    EXPECT_FALSE(fs::exists(blob_part()));
    r = earshot("models pull blob-test", server_.url());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read_file_bytes(blob(), "downloaded"), source_blob());
}

TEST_F(ModelsCommand, CtrlCKeepsAPartThatThePullResumes) {
    // The stalling server sends half the file, then nothing: Ctrl-C comes while it waits.
    const std::string script = env(server_.url("stall")) + shell_quote(EARSHOT_EXE) +
                               " models pull blob-test --stall-timeout 60 & pid=$!; "
                               "for i in $(seq 100); do [ -s " +
                               shell_quote(blob_part().string()) +
                               " ] && break; sleep 0.1; done; sleep 0.3; kill -INT $pid; wait $pid";
    ProcessResult r = run_shell(script);
    EXPECT_EQ(r.exit_code, 130) << r.err;
    EXPECT_TRUE(contains(r.err, "cancelled;")) << r.err;
    ASSERT_TRUE(fs::exists(blob_part()));
    EXPECT_EQ(fs::file_size(blob_part()), kBlobBytes / 2);

    r = earshot("models pull blob-test", server_.url());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(requests(), "bytes=" + std::to_string(kBlobBytes / 2) + "- 206"))
        << requests();
    EXPECT_EQ(read_file_bytes(blob(), "downloaded"), source_blob());
}

TEST_F(ModelsCommand, RejectsACorruptedFileAndKeepsNothing) {
    // Checked against the hub's X-Linked-Etag (the catalog has no hash for this file).
    ProcessResult r = earshot("models pull blob-test", server_.url("corrupt"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "hash mismatch, the download was deleted: ggml-blob.bin: SHA-256"))
        << r.err;
    EXPECT_TRUE(contains(r.err, "(from the hub (X-Linked-Etag))")) << r.err;
    EXPECT_FALSE(fs::exists(models() / "blob-test"));
    // Against the catalog's hash.
    r = earshot("models pull micro-test", server_.url("corrupt"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "(from the catalog)")) << r.err;
    EXPECT_FALSE(fs::exists(models() / "micro-test"));
    EXPECT_TRUE(fs::is_empty(models())) << "the models folder keeps nothing of either";
}

TEST_F(ModelsCommand, SaysWhatIsMissingOnA404) {
    const ProcessResult r = earshot("models pull blob-test", server_.url("404"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "not found (404): ggml-blob.bin is not in earshot-test/blob on " +
                                    server_.url("404")))
        << r.err;
    EXPECT_FALSE(fs::exists(blob()));
}

TEST_F(ModelsCommand, GivesUpOnAStalledServer) {
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r =
        earshot("models pull blob-test --stall-timeout 2", server_.url("stall"));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "the server stalled: nothing received for 2 s")) << r.err;
    EXPECT_TRUE(contains(r.err, "150.0 kB of 300.0 kB kept in")) << r.err;
    EXPECT_LT(seconds, 20.0);
    EXPECT_EQ(fs::file_size(blob_part()), kBlobBytes / 2);
}

TEST_F(ModelsCommand, SaysItIsOfflineWhenNothingAnswers) {
    // Port 1 on 127.0.0.1: nothing listens there, the connection is refused at once.
    const ProcessResult r = earshot("models pull blob-test", "http://127.0.0.1:1");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "offline? cannot connect to http://127.0.0.1:1")) << r.err;
}

TEST_F(ModelsCommand, NamesTheProxyThatRefuses) {
    ProcessResult r =
        earshot("models pull blob-test", server_.url(), "http_proxy=" + shell_quote(server_.url()));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "the proxy " + server_.url() + " refused the request (407"))
        << r.err;
    r = earshot("models pull blob-test", server_.url(), "http_proxy=http://127.0.0.1:1");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "the proxy http://127.0.0.1:1 refused the connection")) << r.err;
}

TEST_F(ModelsCommand, StopsOnAFullDisk) {
    // A file size limit (ulimit -f, in 512- or 1024-byte blocks): the write past it fails.
    ProcessResult r = run_shell("ulimit -f 100; " + env(server_.url()) + shell_quote(EARSHOT_EXE) +
                                " models pull blob-test");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(
        contains(r.err, "the disk is full: writing " + blob_part().string() + " failed after"))
        << r.err;
    EXPECT_FALSE(fs::exists(blob()));

    // More than any disk has: refused before a single request.
    entries_.push_back(
        {{"name", "huge-test"},
         {"form", "ggml"},
         {"repo", "earshot-test/huge"},
         {"files", {{{"name", "ggml-huge.bin"}, {"size_bytes", 1000000000000000000}}}}});
    write_catalog(catalog_, entries_);
    const std::string before = requests();
    r = earshot("models pull huge-test", server_.url());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "not enough disk space: huge-test needs 1000000.0 TB more"))
        << r.err;
    EXPECT_EQ(requests(), before);
}

TEST_F(ModelsCommand, WithoutModelUsesTheAppsChoiceElseTheMicroModel) {
    const fs::path wav = dir_.path() / "quiet.wav";
    write_wav_pcm16(wav, std::vector<float>(kSpokenSampleRateHz, 0.0f));  // 1 s of silence
    const std::string args = "transcribe " + shell_quote(wav.string()) + " --format txt";
    ProcessResult r = earshot(args, server_.url());
    EXPECT_TRUE(contains(r.err,
                         "earshot transcribe: no --model given; using the embedded micro "
                         "model, a demo that understands only espeak-ng voices"))
        << r.err;
    EXPECT_EQ(r.exit_code, 0) << r.err;

    fs::create_directories(config_ / "earshot");
    std::ofstream(config_ / "earshot" / "earshot.conf")
        << "[model]\npath=" << micro_model_dir().string() << "\nvocabulary=\n";
    r = earshot(args, server_.url());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.err, "no --model given; using the model chosen in the app: " +
                                    micro_model_dir().string()))
        << r.err;
}

// inspect and graph choose their model as transcribe does; the README's `earshot graph --format
// dot | dot -Tpng > g.png` draws the micro model's graph (before: --model was required, the
// command printed only its usage, and the PNG was empty).
TEST_F(ModelsCommand, InspectAndGraphWithoutModelUseTheSameDefault) {
    ProcessResult r = earshot("graph --format dot", server_.url());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("digraph", 0), 0u) << r.out.substr(0, 200);
    EXPECT_TRUE(contains(r.err, "earshot graph: no --model given; using the embedded micro model"))
        << r.err;
    r = earshot("inspect", server_.url());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "\nD\t64\n")) << r.out.substr(0, 600);
    EXPECT_TRUE(
        contains(r.err, "earshot inspect: no --model given; using the embedded micro model"))
        << r.err;
    // A catalog name that is not installed is refused with what to run, as transcribe does.
    r = earshot("graph --model tiny", server_.url());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "earshot graph: ")) << r.err;
}

// The built-in catalog: every size in both forms, with whisper.cpp's published hashes.
TEST(ModelCatalog, HoldsTheOfficialCheckpointsInBothForms) {
    const std::vector<app::CatalogEntry> catalog = app::builtin_catalog();
    for (const char* size : {"tiny", "tiny.en", "base", "base.en", "small", "small.en", "medium",
                             "medium.en", "large-v2", "large-v3", "large-v3-turbo"}) {
        const app::CatalogEntry* hf =
            app::find_catalog_entry(catalog, std::string("whisper-") + size);
        ASSERT_NE(hf, nullptr) << size;
        EXPECT_EQ(hf->repo, std::string("openai/whisper-") + size);
        EXPECT_EQ(hf->form, app::ModelForm::huggingface);
        EXPECT_GT(hf->download_bytes(), 100000000);
        const app::CatalogEntry* ggml =
            app::find_catalog_entry(catalog, std::string("ggml-") + size);
        ASSERT_NE(ggml, nullptr) << size;
        EXPECT_EQ(ggml->repo, "ggerganov/whisper.cpp");
        EXPECT_EQ(ggml->model_file(), std::string("ggml-") + size + ".bin");
        EXPECT_EQ(hf->languages == "English", std::string(size).ends_with(".en")) << size;
    }
    EXPECT_EQ(app::find_catalog_entry(catalog, "ggml-base.en")->files[0].sha1,
              "137c40403d78fd54d454da0f9bd998f78703390c");
    EXPECT_EQ(app::find_catalog_entry(catalog, "ggml-large-v3-q5_0")->files[0].sha1,
              "e6e2ed78495d403bef4b7cff42ef4aaadcfea8de");
    EXPECT_NE(app::find_catalog_entry(catalog, "ggml-base.en-q5_1"), nullptr);
    // Quantized weights stay in their blocks: the file plus what the CPU backend needs beside it
    // for the size's shape. Measured with beam 5 over a full window (peak resident memory): 168.4
    // MiB beside a 52.7 MiB base.en q5_0 file, 1555 MiB beside a 1031.1 MiB large-v3 q5_0 file;
    // the catalog is within 3% of both.
    const double mib = 1024.0 * 1024.0;
    const app::CatalogEntry* q5 = app::find_catalog_entry(catalog, "ggml-large-v3-q5_0");
    const app::CatalogEntry* f16 = app::find_catalog_entry(catalog, "ggml-large-v3");
    EXPECT_NEAR(double(q5->memory_bytes - 1126LL * 1024 * 1024) / mib, 1555.0 - 1031.1,
                0.03 * 1555.0);
    EXPECT_LT(q5->memory_bytes, f16->memory_bytes / 2);
    EXPECT_LT(q5->download_bytes(), f16->download_bytes());
    // Without a listed size: base's 74 M parameters in q5_1 blocks (24 bytes per 32 values) or q8_0
    // blocks (34), beside the same working memory.
    const app::CatalogEntry* base_en_q5 = app::find_catalog_entry(catalog, "ggml-base.en-q5_1");
    const app::CatalogEntry* base_q8 = app::find_catalog_entry(catalog, "ggml-base-q8_0");
    const app::CatalogEntry* base_f16 = app::find_catalog_entry(catalog, "ggml-base");
    ASSERT_NE(base_en_q5, nullptr);
    ASSERT_NE(base_q8, nullptr);
    EXPECT_NEAR(double(base_en_q5->memory_bytes - 290LL * 1000 * 1000 / 4 / 32 * 24) / mib,
                168.4 - 52.7, 0.03 * 168.4);
    EXPECT_EQ(base_q8->memory_bytes - base_en_q5->memory_bytes,
              290LL * 1000 * 1000 / 4 / 32 * (34 - 24));
    EXPECT_LT(base_q8->memory_bytes, base_f16->memory_bytes);
    EXPECT_EQ(app::find_catalog_entry(catalog, "ggml-large-v3")->languages, "100 languages");
    EXPECT_EQ(app::resolve_url("https://huggingface.co", "openai/whisper-tiny", "config.json"),
              "https://huggingface.co/openai/whisper-tiny/resolve/main/config.json");
}

TEST(ModelCatalog, TheHubComesFromTheFlagThenTheEnvironment) {
    setenv("EARSHOT_HUB_URL", "http://a.test/", 1);
    setenv("HF_ENDPOINT", "http://b.test", 1);
    EXPECT_EQ(app::hub_url("http://flag.test/"), "http://flag.test");
    EXPECT_EQ(app::hub_url(), "http://a.test");
    unsetenv("EARSHOT_HUB_URL");
    EXPECT_EQ(app::hub_url(), "http://b.test");
    unsetenv("HF_ENDPOINT");
    EXPECT_EQ(app::hub_url(), "https://huggingface.co");
}

TEST(ModelCatalog, ACatalogFileNamesWhatIsWrong) {
    const TempDir dir("earshot-catalog");
    std::ofstream(dir.path() / "bad.json") << R"({"models": [{"name": "x", "form": "zip",
        "repo": "a/b", "files": [{"name": "f"}]}]})";
    try {
        app::read_catalog_file(dir.path() / "bad.json");
        FAIL() << "a bad form was accepted";
    } catch (const app::CatalogError& e) {
        EXPECT_TRUE(contains(e.what(), "x: form \"zip\" is neither hf nor ggml")) << e.what();
    }
}

}  // namespace
}  // namespace earshot::test
