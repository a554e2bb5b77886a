// CompareDialog: the "Compare runs" choice: run A (the loaded model on a backend), run B (another
// checkpoint, such as the model's q8_0 copy, or the same one, on a backend) and the input both
// hear (the Files page's window, an audio file's first window, or a .npy log-mel).
#pragma once

#include <QDialog>

#include "earshot/ui/inspector/compare_data.h"

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QRadioButton;
class QSpinBox;

namespace earshot::ui {

class CompareDialog : public QDialog {
    Q_OBJECT

public:
    explicit CompareDialog(const CompareOffer& offer, const CompareChoice& last = {},
                           QWidget* parent = nullptr);

    CompareChoice choice() const;
    // Why Compare cannot be pressed now ("Choose an audio file."); empty when it can.
    QString problem() const;

    QComboBox* backendA() const { return m_backendA; }
    QComboBox* backendB() const { return m_backendB; }
    QLineEdit* modelB() const { return m_modelB; }
    QRadioButton* filesInput() const { return m_filesInput; }
    QRadioButton* audioInput() const { return m_audioInput; }
    QRadioButton* melInput() const { return m_melInput; }
    QLineEdit* audioPath() const { return m_audioPath; }
    QLineEdit* melPath() const { return m_melPath; }
    QCheckBox* decoder() const { return m_decoder; }
    QSpinBox* threadsA() const { return m_threadsA; }  // 0: "shared pool"
    QSpinBox* threadsB() const { return m_threadsB; }
    QSpinBox* budgetMib() const { return m_budgetMib; }
    // The most a thread count may be: the machine's hardware threads.
    static int maxThreads();
    QDialogButtonBox* buttons() const { return m_buttons; }

private:
    void update();

    CompareOffer m_offer;
    QComboBox* m_backendA = nullptr;
    QComboBox* m_backendB = nullptr;
    QLineEdit* m_modelB = nullptr;
    QRadioButton* m_filesInput = nullptr;
    QRadioButton* m_audioInput = nullptr;
    QRadioButton* m_melInput = nullptr;
    QLineEdit* m_audioPath = nullptr;
    QLineEdit* m_melPath = nullptr;
    QCheckBox* m_decoder = nullptr;
    QSpinBox* m_threadsA = nullptr;
    QSpinBox* m_threadsB = nullptr;
    QSpinBox* m_budgetMib = nullptr;
    QLabel* m_problem = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

}  // namespace earshot::ui
