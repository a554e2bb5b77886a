// LevelMeter: a horizontal bar showing the input level in dBFS (-60 to 0), green, then amber and
// red near full scale, with the level written beside it.
#pragma once

#include <QWidget>

namespace earshot::ui {

class LevelMeter : public QWidget {
    Q_OBJECT

public:
    static constexpr double kFloorDbfs = -60.0;  // the empty bar; anything lower reads as this

    explicit LevelMeter(QWidget* parent = nullptr);

    void setLevelDbfs(double levelDbfs);
    double levelDbfs() const { return m_levelDbfs; }
    // The lit part of the bar, 0 (at or below kFloorDbfs) to 1 (0 dBFS and above).
    double fillFraction() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    double m_levelDbfs = -120.0;
};

}  // namespace earshot::ui
