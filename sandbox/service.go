package sandbox

import (
	"context"
	"crypto/x509"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

// Service is the sandbox admin API. Its Client must carry the sandbox admin
// key (client.WithAdminKey), at New or per call; only the CA certificate
// calls need none. It is safe for concurrent use.
type Service struct {
	c *client.Client
}

// NewService returns the sandbox admin service over c.
func NewService(c *client.Client) *Service { return &Service{c: c} }

// API is the set of calls of Service, so that code driving the sandbox can
// be tested with a stand-in for one or all of them.
type API interface {
	Fixtures(ctx context.Context, opts ...client.Option) (Fixtures, error)
	Reset(ctx context.Context, opts ...client.Option) (Fixtures, error)
	CreateUser(ctx context.Context, opts ...client.Option) (User, error)
	CreateLocation(ctx context.Context, req CreateLocationRequest, opts ...client.Option) (Location, error)
	CreateAPIKey(ctx context.Context, locationIDs []int64, opts ...client.Option) (APIKey, error)
	SetCardStatus(ctx context.Context, cardID int64, status wallet.CardStatus, opts ...client.Option) error
	Clock(ctx context.Context, opts ...client.Option) (Clock, error)
	AdvanceClock(ctx context.Context, d time.Duration, opts ...client.Option) (Clock, error)
	Faults(ctx context.Context, opts ...client.Option) ([]Fault, error)
	AddFault(ctx context.Context, req FaultRequest, opts ...client.Option) (Fault, error)
	ClearFaults(ctx context.Context, opts ...client.Option) error
	Requests(ctx context.Context, q JournalQuery, opts ...client.Option) (Journal, error)
	CACertificate(ctx context.Context, opts ...client.Option) ([]byte, error)
	CertPool(ctx context.Context, opts ...client.Option) (*x509.CertPool, error)
	ProviderTrust(ctx context.Context, opts ...client.Option) (wallet.ServiceOption, error)
	SnapshotAPI
	PayCheck(ctx context.Context, locationID, checkNumber int64, req PayCheckRequest, opts ...client.Option) (wallet.Payment, error)
	SetDiners(ctx context.Context, locationID int64, req DinersRequest, opts ...client.Option) (Diners, error)
	Diners(ctx context.Context, locationID int64, opts ...client.Option) (Diners, error)
	StopDiners(ctx context.Context, locationID int64, opts ...client.Option) error
	SetDemoPOS(ctx context.Context, locationID int64, req DemoPOSRequest, opts ...client.Option) (DemoPOS, error)
	DemoPOS(ctx context.Context, locationID int64, opts ...client.Option) (DemoPOS, error)
}

var _ API = (*Service)(nil)
