use super::*;

#[test]
fn status_codes_are_nvme_codes() {
    assert_eq!(Status::ZoneIsFull.code(), (1, 0xB9));
    assert_eq!(Status::LbaOutOfRange.code(), (0, 0x80));
    assert_eq!(
        Status::TooManyOpenZones.to_string(),
        "Too Many Open Zones (SCT 1h, SC BEh)"
    );
    assert_eq!(ZoneState::Full as u8, 0xE);
}

#[test]
fn state_names_parse_both_spellings() {
    for s in ZoneState::ALL {
        assert_eq!(ZoneState::parse(s.nvme_cli_name()), Some(s));
        assert_eq!(ZoneState::parse(s.zbd_name()), Some(s));
    }
    assert_eq!(
        ZoneState::parse("implicitlyopened"),
        Some(ZoneState::ImplicitlyOpened)
    );
    assert_eq!(ZoneState::parse("half-open"), None);
}

#[test]
fn select_all_targets() {
    assert!(ZoneAction::Reset.select_all_applies(ZoneState::Full));
    assert!(!ZoneAction::Reset.select_all_applies(ZoneState::Empty));
    assert!(ZoneAction::Open.select_all_applies(ZoneState::Closed));
    assert!(!ZoneAction::Open.select_all_applies(ZoneState::Empty));
    assert!(ZoneAction::Offline.select_all_applies(ZoneState::ReadOnly));
}
