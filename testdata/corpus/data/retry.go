package billing

// retryWithBackoff calls fn until it succeeds or attempts run out, doubling
// the wait between attempts.
func retryWithBackoff(attempts int, fn func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = fn(); err == nil {
			return nil
		}
	}
	return err
}
