// Tests for Settings (QSettings round trip, out-of-range values ignored) and the settings dialog
// (shows the values, reads edits back; CUDA enabled with its device, or disabled with the reason).
#include "earshot/ui/settings/settings_dialog.h"

#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QKeySequenceEdit>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>

#include "earshot/ui/settings/settings.h"

namespace earshot::ui {
namespace {

TEST(Settings, DefaultsAndRoundTrip) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("earshot.ini"));
    {
        QSettings store(file, QSettings::IniFormat);
        const Settings defaults = Settings::load(store);
        EXPECT_EQ(defaults.language, QStringLiteral("auto"));
        EXPECT_EQ(defaults.task, QStringLiteral("transcribe"));
        EXPECT_EQ(defaults.beamSize, 5);
        EXPECT_EQ(defaults.updateIntervalMs, 500);
        EXPECT_DOUBLE_EQ(defaults.vadMarginDb, 12.0);
        EXPECT_EQ(defaults.backend, QStringLiteral("auto"));
        EXPECT_FALSE(defaults.typeIntoFocusedWindow);
        EXPECT_EQ(defaults.typingMethod, QStringLiteral("auto"));

        Settings changed;
        changed.language = QStringLiteral("de");
        changed.task = QStringLiteral("translate");
        changed.beamSize = 1;
        changed.updateIntervalMs = 1200;
        changed.vadMarginDb = 6.5;
        changed.backend = QStringLiteral("cpu");
        changed.typeIntoFocusedWindow = true;
        changed.typingMethod = QStringLiteral("clipboard");
        changed.save(store);
    }
    QSettings reopened(file, QSettings::IniFormat);
    const Settings loaded = Settings::load(reopened);
    EXPECT_EQ(loaded.language, QStringLiteral("de"));
    EXPECT_EQ(loaded.task, QStringLiteral("translate"));
    EXPECT_EQ(loaded.beamSize, 1);
    EXPECT_EQ(loaded.updateIntervalMs, 1200);
    EXPECT_DOUBLE_EQ(loaded.vadMarginDb, 6.5);
    EXPECT_EQ(loaded.backend, QStringLiteral("cpu"));
    EXPECT_TRUE(loaded.typeIntoFocusedWindow);
    EXPECT_EQ(loaded.typingMethod, QStringLiteral("clipboard"));
}

TEST(Settings, OutOfRangeValuesKeepTheDefaults) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QSettings store(dir.filePath(QStringLiteral("bad.ini")), QSettings::IniFormat);
    store.setValue(QStringLiteral("settings/task"), QStringLiteral("summarize"));
    store.setValue(QStringLiteral("settings/update_interval_ms"), 20);
    store.setValue(QStringLiteral("settings/vad_margin_db"), QStringLiteral("loud"));
    store.setValue(QStringLiteral("settings/backend"), QStringLiteral("tpu"));
    store.setValue(QStringLiteral("settings/beam_size"), 99);
    store.setValue(QStringLiteral("settings/typing_method"), QStringLiteral("telepathy"));
    const Settings loaded = Settings::load(store);
    EXPECT_EQ(loaded, Settings{});
}

LanguageList englishAndFrench() {
    return {{QStringLiteral("en"), QStringLiteral("fr")},
            {QStringLiteral("english"), QStringLiteral("french")},
            false};
}

// What a multilingual model lists: openai's codes and names (the first six of them).
LanguageList multilingual() {
    return {{QStringLiteral("en"), QStringLiteral("zh"), QStringLiteral("de"), QStringLiteral("es"),
             QStringLiteral("ru"), QStringLiteral("ko")},
            {QStringLiteral("english"), QStringLiteral("chinese"), QStringLiteral("german"),
             QStringLiteral("spanish"), QStringLiteral("russian"), QStringLiteral("korean")},
            false};
}

TEST(SettingsDialog, ListsLanguagesByNameAndChecksWhatIsTyped) {
    SettingsDialog dialog(Settings{}, multilingual(), CudaAvailability{});
    QComboBox* box = dialog.languageBox();
    EXPECT_EQ(box->itemText(2), QStringLiteral("Chinese (zh)"));
    EXPECT_EQ(box->itemText(6), QStringLiteral("Korean (ko)"));
    EXPECT_EQ(box->currentIndex(), 0);  // auto
    EXPECT_TRUE(dialog.okButton()->isEnabled());

    box->lineEdit()->selectAll();
    QTest::keyClicks(box->lineEdit(), QStringLiteral("klingon"));
    EXPECT_FALSE(dialog.okButton()->isEnabled());
    EXPECT_FALSE(dialog.languageNote()->isHidden());
    EXPECT_EQ(dialog.languageNote()->text(),
              QStringLiteral("Unknown language \"klingon\": choose one from the list."));

    // A name or a code, in any case, is the language.
    box->lineEdit()->selectAll();
    QTest::keyClicks(box->lineEdit(), QStringLiteral("German"));
    EXPECT_TRUE(dialog.okButton()->isEnabled());
    EXPECT_TRUE(dialog.languageNote()->isHidden());
    EXPECT_EQ(dialog.settings().language, QStringLiteral("de"));
    box->lineEdit()->selectAll();
    QTest::keyClicks(box->lineEdit(), QStringLiteral("KO"));
    EXPECT_EQ(dialog.settings().language, QStringLiteral("ko"));
    box->setCurrentIndex(2);
    EXPECT_EQ(dialog.settings().language, QStringLiteral("zh"));
}

TEST(SettingsDialog, AnEnglishOnlyModelOffersEnglishAndNoTranslation) {
    Settings saved;
    saved.task = QStringLiteral("translate");
    LanguageList english = multilingual();
    english.englishOnly = true;
    SettingsDialog dialog(saved, english, CudaAvailability{});
    auto* languages = qobject_cast<QStandardItemModel*>(dialog.languageBox()->model());
    auto* tasks = qobject_cast<QStandardItemModel*>(dialog.taskBox()->model());
    ASSERT_NE(languages, nullptr);
    ASSERT_NE(tasks, nullptr);
    EXPECT_TRUE(languages->item(0)->isEnabled());  // auto
    EXPECT_TRUE(languages->item(1)->isEnabled());  // English
    for (int i = 2; i < languages->rowCount(); ++i) EXPECT_FALSE(languages->item(i)->isEnabled());
    EXPECT_FALSE(tasks->item(1)->isEnabled());
    EXPECT_EQ(dialog.settings().task, QStringLiteral("transcribe"));

    QLineEdit* edit = dialog.languageBox()->lineEdit();
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("zh"));
    EXPECT_FALSE(dialog.okButton()->isEnabled());
    EXPECT_EQ(dialog.languageNote()->text(),
              QStringLiteral("This model is English-only: it cannot transcribe Chinese."));
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("english"));
    EXPECT_TRUE(dialog.okButton()->isEnabled());
    EXPECT_EQ(dialog.settings().language, QStringLiteral("en"));
}

TEST(SettingsDialog, ShowsAndReadsBackEveryField) {
    Settings settings;
    settings.language = QStringLiteral("fr");
    settings.beamSize = 3;
    settings.updateIntervalMs = 800;
    SettingsDialog dialog(settings, englishAndFrench(), CudaAvailability{});
    EXPECT_EQ(dialog.languageBox()->currentText(), QStringLiteral("French (fr)"));
    EXPECT_EQ(dialog.languageBox()->itemData(0).toString(), QStringLiteral("auto"));
    EXPECT_EQ(dialog.languageBox()->count(), 3);
    EXPECT_EQ(dialog.beamBox()->value(), 3);
    EXPECT_EQ(dialog.intervalBox()->value(), 800);
    EXPECT_EQ(dialog.settings(), settings);

    dialog.languageBox()->setCurrentIndex(1);
    dialog.taskBox()->setCurrentIndex(1);
    dialog.beamBox()->setValue(1);
    dialog.intervalBox()->setValue(300);
    dialog.vadBox()->setValue(18.0);
    dialog.backendBox()->setCurrentIndex(1);
    EXPECT_FALSE(dialog.typeIntoBox()->isChecked());
    EXPECT_EQ(dialog.typingMethodBox()->currentData().toString(), QStringLiteral("auto"));
    QTest::mouseClick(dialog.typeIntoBox(), Qt::LeftButton);
    dialog.typingMethodBox()->setCurrentIndex(
        dialog.typingMethodBox()->findData(QStringLiteral("keys")));
    const Settings edited = dialog.settings();
    EXPECT_TRUE(edited.typeIntoFocusedWindow);
    EXPECT_EQ(edited.typingMethod, QStringLiteral("keys"));
    EXPECT_EQ(edited.language, QStringLiteral("en"));
    EXPECT_EQ(edited.task, QStringLiteral("translate"));
    EXPECT_EQ(edited.beamSize, 1);
    EXPECT_EQ(edited.updateIntervalMs, 300);
    EXPECT_DOUBLE_EQ(edited.vadMarginDb, 18.0);
    // The field is named as the command line names it (--vad-margin-db).
    QString vadLabel;
    for (auto* label : dialog.findChildren<QLabel*>()) {
        if (label->buddy() == dialog.vadBox()) vadLabel = label->text();
    }
    EXPECT_EQ(vadLabel, QStringLiteral("&VAD margin:"));
    EXPECT_TRUE(dialog.vadBox()->toolTip().contains(QStringLiteral("--vad-margin-db")));
    EXPECT_EQ(edited.backend, QStringLiteral("cpu"));
    // The spin boxes stop at the ranges Settings::load accepts.
    dialog.beamBox()->setValue(1000);
    EXPECT_EQ(dialog.beamBox()->value(), Settings::kMaxBeamSize);
}

// Spoken commands (on by default, a file that replaces the table) and the vocabulary file: kept,
// shown and read back; the commands file is greyed while commands are off.
TEST(SettingsDialog, SpokenCommandsAndVocabularyFiles) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("earshot.ini"));
    {
        QSettings store(file, QSettings::IniFormat);
        const Settings defaults = Settings::load(store);
        EXPECT_TRUE(defaults.spokenCommands);
        EXPECT_TRUE(defaults.guardInventedWords);
        EXPECT_EQ(defaults.commandsFile, QString());
        EXPECT_EQ(defaults.vocabularyFile, QString());
        Settings changed;
        changed.spokenCommands = false;
        changed.guardInventedWords = false;
        changed.commandsFile = QStringLiteral("/home/me/commands.tsv");
        changed.vocabularyFile = QStringLiteral("/home/me/names.txt");
        changed.save(store);
    }
    QSettings reopened(file, QSettings::IniFormat);
    const Settings loaded = Settings::load(reopened);
    EXPECT_FALSE(loaded.spokenCommands);
    EXPECT_FALSE(loaded.guardInventedWords);
    EXPECT_EQ(loaded.commandsFile, QStringLiteral("/home/me/commands.tsv"));
    EXPECT_EQ(loaded.vocabularyFile, QStringLiteral("/home/me/names.txt"));

    SettingsDialog dialog(loaded, englishAndFrench(), CudaAvailability{});
    EXPECT_FALSE(dialog.spokenCommandsBox()->isChecked());
    EXPECT_FALSE(dialog.guardBox()->isChecked());
    EXPECT_FALSE(dialog.commandsFileEdit()->isEnabled());
    EXPECT_EQ(dialog.vocabularyFileEdit()->text(), QStringLiteral("/home/me/names.txt"));
    QTest::mouseClick(dialog.spokenCommandsBox(), Qt::LeftButton);
    EXPECT_TRUE(dialog.commandsFileEdit()->isEnabled());
    QTest::mouseClick(dialog.guardBox(), Qt::LeftButton);
    dialog.vocabularyFileEdit()->setText(QStringLiteral("  /tmp/words.txt "));
    const Settings edited = dialog.settings();
    EXPECT_TRUE(edited.spokenCommands);
    EXPECT_TRUE(edited.guardInventedWords);
    EXPECT_EQ(edited.commandsFile, QStringLiteral("/home/me/commands.tsv"));
    EXPECT_EQ(edited.vocabularyFile, QStringLiteral("/tmp/words.txt"));
}

// Every access key (the letter after '&' in a label, a box or a button) is used once, so Alt+key
// reaches one field.
TEST(SettingsDialog, NoMnemonicIsUsedTwice) {
    SettingsDialog dialog(Settings{}, englishAndFrench(), CudaAvailability{});
    QStringList texts;
    for (const QLabel* label : dialog.findChildren<QLabel*>()) texts << label->text();
    for (const QAbstractButton* button : dialog.findChildren<QAbstractButton*>()) {
        texts << button->text();
    }
    QMap<QChar, QString> seen;
    int keys = 0;
    for (const QString& text : texts) {
        const qsizetype at = QString(text)
                                 .replace(QStringLiteral("&&"), QStringLiteral("__"))
                                 .indexOf(QLatin1Char('&'));
        if (at < 0 || at + 1 >= text.size()) continue;
        const QChar key = text.at(at + 1).toLower();
        EXPECT_FALSE(seen.contains(key))
            << "Alt+" << QString(key).toStdString() << ": \"" << seen.value(key).toStdString()
            << "\" and \"" << text.toStdString() << "\"";
        seen.insert(key, text);
        ++keys;
    }
    EXPECT_GE(keys, 16);  // the fields' labels and boxes, the guard's among them
    EXPECT_EQ(seen.value(QLatin1Char('h')), dialog.guardBox()->text());
}

// The global shortcut field: Ctrl+Alt+D is recorded, and Enter then confirms the dialog instead
// of being recorded as the shortcut; a bare key is refused with the reason (it would be taken
// from every application: Enter started dictation everywhere); a function key alone is allowed.
// A bare key saved by an older version loads as no shortcut.
TEST(SettingsDialog, AShortcutNeedsAModifierAndEnterConfirms) {
    SettingsDialog dialog(Settings{}, englishAndFrench(), CudaAvailability{});
    dialog.show();
    QKeySequenceEdit* edit = dialog.shortcutEdit();
    edit->setFocus();
    QTest::keyClick(edit, Qt::Key_D, Qt::ControlModifier | Qt::AltModifier);
    Q_EMIT edit->editingFinished();
    EXPECT_EQ(dialog.settings().globalShortcut, QStringLiteral("Ctrl+Alt+D"));
    QTest::keyClick(edit, Qt::Key_Return);
    EXPECT_EQ(dialog.result(), QDialog::Accepted);
    EXPECT_EQ(dialog.settings().globalShortcut, QStringLiteral("Ctrl+Alt+D"));

    SettingsDialog bare(Settings{}, englishAndFrench(), CudaAvailability{});
    bare.show();
    QCoreApplication::processEvents();
    const int heightBefore = bare.height();
    bare.shortcutEdit()->setKeySequence(QKeySequence(Qt::Key_A));
    Q_EMIT bare.shortcutEdit()->editingFinished();
    // The dialog grows for the note instead of cutting the other notes' lines.
    QCoreApplication::processEvents();
    EXPECT_GT(bare.height(), heightBefore);
    EXPECT_TRUE(bare.shortcutEdit()->keySequence().isEmpty());
    EXPECT_FALSE(bare.shortcutNote()->isHidden());
    EXPECT_TRUE(bare.shortcutNote()->text().contains(QStringLiteral("needs Ctrl, Alt or Super")))
        << bare.shortcutNote()->text().toStdString();
    EXPECT_EQ(bare.settings().globalShortcut, QString());
    bare.shortcutEdit()->setKeySequence(QKeySequence(Qt::Key_F9));
    Q_EMIT bare.shortcutEdit()->editingFinished();
    EXPECT_TRUE(bare.shortcutNote()->isHidden());
    EXPECT_EQ(bare.settings().globalShortcut, QStringLiteral("F9"));

    EXPECT_FALSE(isGlobalShortcut(QStringLiteral("Return")));
    EXPECT_FALSE(isGlobalShortcut(QStringLiteral("Shift+A")));
    EXPECT_TRUE(isGlobalShortcut(QStringLiteral("Meta+Space")));
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QSettings store(dir.filePath(QStringLiteral("earshot.ini")), QSettings::IniFormat);
    store.setValue(QStringLiteral("settings/global_shortcut"), QStringLiteral("Return"));
    EXPECT_EQ(Settings::load(store).globalShortcut, QString());
    store.setValue(QStringLiteral("settings/global_shortcut"), QStringLiteral("Ctrl+Alt+D"));
    EXPECT_EQ(Settings::load(store).globalShortcut, QStringLiteral("Ctrl+Alt+D"));
}

TEST(SettingsDialog, CudaIsDisabledWithTheReasonWhenItCannotRun) {
    Settings settings;
    settings.backend = QStringLiteral("cuda");
    const QString reason =
        QStringLiteral("no NVIDIA driver: libcuda.so.1 was not found (install the driver)");
    SettingsDialog dialog(settings, {}, CudaAvailability{false, reason});
    auto* model = qobject_cast<QStandardItemModel*>(dialog.backendBox()->model());
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(dialog.backendBox()->itemData(2).toString(), QStringLiteral("cuda"));
    EXPECT_FALSE(model->item(2)->isEnabled());
    // A saved cuda choice that cannot run shows (and saves) Automatic.
    EXPECT_EQ(dialog.settings().backend, QStringLiteral("auto"));
    EXPECT_EQ(dialog.backendNote()->text(), QStringLiteral("CUDA is not available: ") + reason +
                                                QStringLiteral(". Automatic runs on the CPU."));
}

TEST(SettingsDialog, CudaIsEnabledWithItsDevice) {
    Settings settings;
    settings.backend = QStringLiteral("cuda");
    const QString device = QStringLiteral("NVIDIA H200, 139.8 GiB, compute 9.0, 139.1 GiB free");
    SettingsDialog dialog(settings, {}, CudaAvailability{true, device});
    auto* model = qobject_cast<QStandardItemModel*>(dialog.backendBox()->model());
    ASSERT_NE(model, nullptr);
    EXPECT_TRUE(model->item(2)->isEnabled());
    EXPECT_EQ(dialog.settings().backend, QStringLiteral("cuda"));
    EXPECT_EQ(dialog.backendNote()->text(),
              QStringLiteral("CUDA device: ") + device + QStringLiteral(". Automatic runs on it."));
    EXPECT_EQ(dialog.backendBox()->itemData(2, Qt::ToolTipRole).toString(), device);
}

}  // namespace
}  // namespace earshot::ui
